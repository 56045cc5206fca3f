import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AnswerWatch } from './stream/answer-watch.js';
import type { JsonObject } from '../core/canonical.js';
import type { ErrorRenderer, StreamEncoder } from '../core/dialect.js';
import type { ErrorCode, GatewayError } from '../core/errors.js';
import type { EventStream } from '../core/event-stream.js';
import { sendEncodedEvents, type FrameTransport } from './stream/send-encoded.js';
import { sseFrame } from './stream/sse.js';

export function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: JsonObject): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Sends bytes as they are read (a file's content), at the pace the client takes them; a client that goes
 * away ends the read. Settles once the body is sent or abandoned.
 */
export async function sendBytes(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Readable,
): Promise<void> {
  res.writeHead(status, headers);
  try {
    await pipeline(body, res);
  } catch {
    // The client went away, or the source failed after the head went out: the answer ends as it can.
    if (!res.destroyed) res.destroy();
  }
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
 * Writes an event stream over HTTP (the sink: proxy/stream/send-encoded.ts). Frames produced in one tick are
 * joined into one write (one HTTP chunk, one syscall); a quiet stream gets the dialect's ping.
 */
export function sendEventStream(
  res: ServerResponse,
  headers: Record<string, string>,
  encoder: StreamEncoder,
  events: EventStream,
  signal: AbortSignal,
  pingIntervalMs: number,
  watch: AnswerWatch | undefined,
): Promise<GatewayError | undefined> {
  res.writeHead(200, { ...headers, ...SSE_HEADERS });
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
  const transport: FrameTransport = {
    frame(event, data) {
      write(sseFrame(event, data));
    },
    drained: res,
    end() {
      flush();
      res.end();
    },
  };
  // The head leaves with the frames the upstream's first bytes already made (one write), or alone if
  // there are none yet (the message dialect has no frame before the first token): a stream's client
  // has its 200 once the upstream accepted.
  const started = (): void => {
    if (pending === '') res.flushHeaders();
  };
  const pinger =
    encoder.ping === undefined
      ? undefined
      : setInterval(() => {
          if (quiet) encoder.ping?.(transport);
          quiet = true;
        }, pingIntervalMs);
  return sendEncodedEvents(transport, encoder, events, signal, watch, started).finally(() => clearInterval(pinger));
}
