import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { JsonObject } from './canonical.js';
import type { ErrorRenderer, StreamEncoder } from './dialect.js';
import { asGatewayError, GatewayError } from './errors.js';
import type { EventStream } from './plugin.js';

export function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: JsonObject): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Sends an error before any response byte went out, in the route's dialect. */
export function sendError(res: ServerResponse, errors: ErrorRenderer, error: GatewayError, headers: Record<string, string>): void {
  const rendered = errors.renderError(error);
  // A request body we stopped reading cannot leave the connection reusable.
  const extra: Record<string, string> = error.code === 'GW_ERR_REQUEST_TOO_LARGE' ? { connection: 'close' } : {};
  sendJson(res, rendered.status, { ...headers, ...extra }, rendered.body);
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

/**
 * Writes an event stream. Frames produced in one tick are corked into one socket write; a full socket
 * buffer pauses the reading of events (and so the upstream) until 'drain'. An error after the first
 * byte becomes the dialect's error event. Returns the error that ended the stream, if any.
 */
export async function sendEventStream(res: ServerResponse, headers: Record<string, string>, encoder: StreamEncoder, events: EventStream, signal: AbortSignal): Promise<GatewayError | undefined> {
  res.writeHead(200, { ...headers, ...SSE_HEADERS });
  let corked = false;
  const uncork = (): void => {
    corked = false;
    res.uncork();
  };
  const write = (text: string): boolean => {
    if (text === '') return true;
    if (!corked) {
      corked = true;
      res.cork();
      process.nextTick(uncork);
    }
    return res.write(text);
  };
  let failure: GatewayError | undefined;
  try {
    write(encoder.start());
    for await (const event of events) {
      if (!write(encoder.event(event))) await once(res, 'drain', { signal });
    }
    write(encoder.end());
  } catch (error) {
    if (signal.aborted) return undefined;
    failure = asGatewayError(error);
    write(encoder.error(failure));
  }
  res.end();
  return failure;
}
