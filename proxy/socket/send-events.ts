import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { AnswerWatch } from '../answer-watch.js';
import type { SocketConversation, StreamEncoder } from '../dialect.js';
import type { GatewayError } from '../errors.js';
import type { EventStream } from '../event-stream.js';
import { sendEncodedEvents, type FrameTransport } from '../send-encoded.js';
import { sseMessages } from './sse-messages.js';

/** One response on a WebSocket: whether its first event went out (the HTTP head's counterpart), and its status. */
export class SocketReply {
  headersSent = false;
  statusCode = 200;
}

/**
 * Sends a response's events as WebSocket messages, one per event (the SSE stream's data), through the
 * same sink as an HTTP stream (proxy/send-encoded.ts): a full socket buffer pauses the events until
 * 'drain'; an error after the first event becomes the dialect's error event; a client that went away
 * cancels the events.
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
  const transport: FrameTransport = {
    write(text) {
      for (const message of sseMessages(text)) {
        ws.send(message.data);
        conversation.sent(message.event, message.data);
        reply.headersSent = true;
      }
    },
    drained: socket,
    end() {},
  };
  return sendEncodedEvents(transport, encoder, events, signal, watch);
}
