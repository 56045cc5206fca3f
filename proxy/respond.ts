import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { JsonObject } from './canonical.js';
import type { ErrorRenderer, StreamEncoder } from './dialect.js';
import { asGatewayError, GatewayError, type ErrorCode } from './errors.js';
import type { EventStream } from './plugin.js';

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
 * Writes an event stream. Frames produced in one tick are joined into one write (one HTTP chunk, one
 * syscall); a full socket buffer pauses the reading of events (and so the upstream) until 'drain'.
 * An error after the first byte becomes the dialect's error event. Returns that error, if any.
 */
export async function sendEventStream(
  res: ServerResponse,
  headers: Record<string, string>,
  encoder: StreamEncoder,
  events: EventStream,
  signal: AbortSignal,
  pingIntervalMs: number,
): Promise<GatewayError | undefined> {
  res.writeHead(200, { ...headers, ...SSE_HEADERS });
  // The head leaves now, not with the first frame (the message dialect has none before the first
  // token): a stream's client has its 200 once the upstream accepted, and the ledger records the
  // status the client got (plugins/meter/request-meter.ts).
  res.flushHeaders();
  let pending = '';
  let quiet = true;
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
  let failure: GatewayError | undefined;
  let reading = false;
  try {
    write(encoder.start());
    reading = true;
    for await (const event of events) {
      // A completion answers a non-streamed call: a streamed request's call streams.
      if (event.type === 'completion')
        throw new GatewayError('GW_ERR_INTERNAL', 'A whole completion reached an event stream.');
      write(encoder.event(event));
      if (res.writableNeedDrain) await once(res, 'drain', { signal });
    }
    write(encoder.end());
  } catch (error) {
    if (signal.aborted) return undefined;
    failure = asGatewayError(error);
    write(encoder.error(failure));
    // The encoder failed before the events were read: a stream never started reaches none of the
    // plugins' ends (the meter's settlement, the rate limiter's output charge: proxy/observe.ts) and
    // leaves the upstream open, so it is read to its end, unseen.
    if (!reading) await discard(events);
  } finally {
    clearInterval(pinger);
  }
  flush();
  res.end();
  return failure;
}

async function discard(events: EventStream): Promise<void> {
  try {
    for await (const event of events) void event;
  } catch {
    // Its failure is the plugins' to record; the client already has its error event.
  }
}
