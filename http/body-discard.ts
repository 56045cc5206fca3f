// What happens to a request body the gateway answered before reading (an error: 401, 404, 413, 415...).
import type { IncomingMessage } from 'node:http';
import type { BodyLimits } from './body.js';

/** An unread body is discarded up to this many times the body limit, and at least MIN_DISCARD_BYTES. */
const DISCARD_FACTOR = 4;
const MIN_DISCARD_BYTES = 16 * 1024 * 1024;

/**
 * Keeps reading the rest of a body, and drops it, so that a client still sending can finish and then
 * read the answer already sent: closing a socket with unread data resets it, and the client sees
 * EPIPE or ECONNRESET instead of the answer. Bounded: when the rest passes 4 × the body limit (at least
 * 16 MiB) or is still arriving when the body's time is up (`limits.timeout` after `headersAt`, a
 * performance.now() time), the connection is closed.
 */
export function discardRestOfBody(req: IncomingMessage, limits: BodyLimits, headersAt: number): void {
  const socket = req.socket;
  if (req.complete || socket.destroyed || !hasBody(req)) return;
  const maxBytes = Math.max(DISCARD_FACTOR * limits.maxBytes, MIN_DISCARD_BYTES);
  let discarded = 0;
  const close = (): void => {
    stop();
    socket.destroy();
  };
  const onData = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > maxBytes) close();
  };
  const deadline = limits.timeout === undefined ? undefined : { at: headersAt + limits.timeout.ms, expire: close };
  const stop = (): void => {
    if (deadline !== undefined) limits.timeout!.deadlines.delete(deadline);
    req.off('data', onData);
    req.off('end', stop);
    req.off('close', stop);
  };
  if (deadline !== undefined) limits.timeout!.deadlines.add(deadline);
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

/** Whether a request has a body at all (a GET usually has none: nothing to discard, though it is not yet `complete`). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
