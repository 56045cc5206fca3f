import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { ResponseEvent } from '../canonical.js';
import type { SocketConversation, StreamEncoder } from '../dialect.js';
import { asGatewayError, GatewayError } from '../errors.js';
import type { EventStream, Sink } from '../event-stream.js';
import { sseMessages } from './sse-messages.js';

/** One response on a WebSocket: whether its first event went out (the HTTP head's counterpart), and its status. */
export class SocketReply {
  headersSent = false;
  statusCode = 200;
}

/**
 * Sends a response's events as WebSocket messages, one per event (the SSE stream's data), like
 * proxy/respond.ts writes them as an HTTP stream: a full socket buffer pauses the events (and so the
 * upstream) until 'drain'; an error after the first event becomes the dialect's error event; a client
 * that went away cancels the events. Settles once every stage of the chain has run its end, with the
 * error, if any.
 */
export function sendEventMessages(
  ws: WebSocket,
  socket: Socket,
  encoder: StreamEncoder,
  events: EventStream,
  conversation: SocketConversation,
  reply: SocketReply,
  signal: AbortSignal,
): Promise<GatewayError | undefined> {
  return new Promise((resolve) => {
    let over = false;
    let waitingForDrain = false;
    const write = (text: string): void => {
      for (const message of sseMessages(text)) {
        ws.send(message.data);
        conversation.sent(message.event, message.data);
        reply.headersSent = true;
      }
    };
    const onDrain = (): void => {
      waitingForDrain = false;
      if (!over) events.resume();
    };
    const close = (failure: GatewayError | undefined): void => {
      signal.removeEventListener('abort', onAbort);
      socket.off('drain', onDrain);
      if (signal.aborted) {
        resolve(undefined);
        return;
      }
      try {
        if (failure !== undefined) write(encoder.error(failure));
      } catch {
        // The error event itself could not be encoded: the response ends without it, and the failure stands.
      }
      resolve(failure);
    };
    const stop = (failure: GatewayError | undefined): void => {
      over = true;
      events.cancel().then(
        () => close(failure),
        () => close(failure),
      );
    };
    const onAbort = (): void => {
      if (!over) stop(undefined);
    };
    signal.addEventListener('abort', onAbort);
    const sink: Sink<ResponseEvent> = {
      onEvent(event) {
        if (over) return;
        try {
          if (event.type === 'completion')
            throw new GatewayError('GW_ERR_INTERNAL', 'A whole completion reached an event stream.');
          write(encoder.event(event));
        } catch (error) {
          stop(asGatewayError(error));
          return;
        }
        if (socket.writableNeedDrain && !waitingForDrain) {
          waitingForDrain = true;
          events.pause();
          socket.once('drain', onDrain);
        }
      },
      onEnd() {
        if (over) return;
        over = true;
        let failure: GatewayError | undefined;
        try {
          write(encoder.end());
        } catch (error) {
          failure = asGatewayError(error);
        }
        close(failure);
      },
      onError(error) {
        if (over) return;
        over = true;
        close(asGatewayError(error));
      },
    };
    try {
      write(encoder.start());
    } catch (error) {
      // As on HTTP (proxy/respond.ts): a stream never started is read to its end, unseen, so every
      // plugin's end runs (the meter settles) and the upstream call is not left open.
      over = true;
      const failure = asGatewayError(error);
      events.pipe({ onEvent: () => {}, onEnd: () => close(failure), onError: () => close(failure) });
      return;
    }
    events.pipe(sink);
  });
}
