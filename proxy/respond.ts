import type { ServerResponse } from 'node:http';
import type { JsonObject, ResponseEvent } from './canonical.js';
import type { ErrorRenderer, StreamEncoder } from './dialect.js';
import { asGatewayError, GatewayError, type ErrorCode } from './errors.js';
import type { EventStream, Sink } from './event-stream.js';

export function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: JsonObject): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Sends an error before any response byte went out, in the route's dialect. */
export function sendError(
  res: ServerResponse,
  errors: ErrorRenderer,
  error: GatewayError,
  headers: Record<string, string>,
): void {
  const rendered = errors.renderError(error);
  sendJson(
    res,
    rendered.status,
    CLOSING.has(error.code) ? { ...headers, connection: 'close' } : headers,
    rendered.body,
  );
}

/**
 * Errors after which the connection is closed: a body that did not arrive in time, a connection over
 * the node's cap. (Others keep it open: an unread body is discarded so the client can read the answer.)
 */
const CLOSING: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'GW_ERR_REQUEST_BODY_TIMEOUT',
  'GW_ERR_SERVER_TOO_MANY_CONNECTIONS',
]);

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/**
 * Writes an event stream: a sink at the end of the chain. Frames produced in one tick are joined into
 * one write (one HTTP chunk, one syscall); a full socket buffer pauses the events (and so the upstream)
 * until 'drain'. An error after the first byte becomes the dialect's error event. Settles once the
 * stream is over and every stage of the chain has run its end, with that error, if any.
 */
export function sendEventStream(
  res: ServerResponse,
  headers: Record<string, string>,
  encoder: StreamEncoder,
  events: EventStream,
  signal: AbortSignal,
  pingIntervalMs: number,
): Promise<GatewayError | undefined> {
  res.writeHead(200, { ...headers, ...SSE_HEADERS });
  return new Promise((resolve) => {
    let pending = '';
    let quiet = true;
    let over = false;
    let waitingForDrain = false;
    const flush = (): void => {
      if (pending === '') return;
      // One encoding pass: a string chunk would be measured (byteLength) and then encoded again.
      const bytes = Buffer.from(pending, 'utf8');
      pending = '';
      res.write(bytes);
    };
    const write = (text: string): void => {
      if (text === '') return;
      if (pending === '') process.nextTick(flush);
      pending += text;
      quiet = false;
    };
    const ping = encoder.ping?.bind(encoder);
    const pinger =
      ping === undefined
        ? undefined
        : setInterval(() => {
            if (quiet) write(ping());
            quiet = true;
          }, pingIntervalMs);
    const onDrain = (): void => {
      waitingForDrain = false;
      if (!over) events.resume();
    };
    /** Once, however the stream ends: the error event (if any) and the end of the response, unless the client is gone. */
    const close = (failure: GatewayError | undefined): void => {
      clearInterval(pinger);
      signal.removeEventListener('abort', onAbort);
      res.off('drain', onDrain);
      if (signal.aborted) {
        resolve(undefined);
        return;
      }
      try {
        if (failure !== undefined) write(encoder.error(failure));
      } catch {
        // The error event itself could not be encoded: the stream ends without it, and the failure stands.
      }
      flush();
      res.end();
      resolve(failure);
    };
    /** The reader stops before the end: the chain's stages run their ends first. */
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
          // A completion answers a non-streamed call: a streamed request's call streams.
          if (event.type === 'completion')
            throw new GatewayError('GW_ERR_INTERNAL', 'A whole completion reached an event stream.');
          write(encoder.event(event));
        } catch (error) {
          stop(asGatewayError(error));
          return;
        }
        if (res.writableNeedDrain && !waitingForDrain) {
          waitingForDrain = true;
          events.pause();
          res.once('drain', onDrain);
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
    let started: string;
    try {
      started = encoder.start();
    } catch (error) {
      // The encoder failed before the events were read: a stream never started reaches none of the
      // plugins' ends (the meter's settlement, the rate limiter's output charge: proxy/observe.ts) and
      // leaves the upstream open, so it is read to its end, unseen.
      over = true;
      const failure = asGatewayError(error);
      events.pipe({ onEvent: () => {}, onEnd: () => close(failure), onError: () => close(failure) });
      return;
    }
    write(started);
    events.pipe(sink);
    // The head leaves now, with the frames the upstream's first bytes already made (one write), or
    // alone if there are none yet (the message dialect has no frame before the first token): a
    // stream's client has its 200 once the upstream accepted.
    if (pending === '' && !over) res.flushHeaders();
  });
}
