// Reading requests and writing responses over node:http, with the waits a stream needs
// (a delay, 'drain') cut short when the client goes away.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SimError } from './errors.js';

const MAX_BODY_BYTES = 64 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new SimError(413, `Request body larger than ${MAX_BODY_BYTES} bytes.`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The body as JSON; a decode error is a 400 as in vLLM (FastAPI's json_invalid). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SimError(400, `JSON decode error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Waits `ms`; false when the signal fired first. */
export async function delay(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Waits for 'drain' after a write() that returned false; false when the client went away. */
export function drained(res: ServerResponse, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      res.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onDrain = done(true);
    const onAbort = done(false);
    res.once('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves once the signal fires (the client went away). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Drops the connection with a TCP RST where the platform allows, so the client sees ECONNRESET. */
export function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}
