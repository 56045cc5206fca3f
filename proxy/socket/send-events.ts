import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { AnswerWatch } from '../stream/answer-watch.js';
import type { FrameSink, SocketConversation, StreamEncoder } from '../../core/dialect.js';
import type { GatewayError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import { sendEncodedEvents } from '../stream/send-encoded.js';

/** One response on a WebSocket: whether its first event went out (the HTTP head's counterpart), and its status. */
export class SocketReply {
  headersSent = false;
  statusCode = 200;
}

/**
 * The frames of one response as WebSocket messages, one per frame (its data), each also told to the
 * conversation (what a later request may build on).
 */
export function socketFrames(ws: WebSocket, conversation: SocketConversation, reply: SocketReply): FrameSink {
  return {
    frame(event, data) {
      ws.send(data);
      conversation.sent(event ?? '', data);
      reply.headersSent = true;
    },
  };
}

/**
 * Sends a response's events as WebSocket messages through the same sink as an HTTP stream
 * (proxy/stream/send-encoded.ts): a full socket buffer pauses the events until 'drain'; an error after the first
 * event becomes the dialect's error event; a client that went away cancels the events.
 */
export function sendEventMessages(
  ws: WebSocket,
  socket: Socket,
  encoder: StreamEncoder,
  events: EventStream,
  conversation: SocketConversation,
  reply: SocketReply,
  signal: AbortSignal,
  watch: AnswerWatch | undefined,
): Promise<GatewayError | undefined> {
  const frames = socketFrames(ws, conversation, reply);
  return sendEncodedEvents({ frame: frames.frame, drained: socket, end() {} }, encoder, events, signal, watch);
}
