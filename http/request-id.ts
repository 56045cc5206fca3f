import { randomBytes } from 'node:crypto';

let prefix = randomBytes(8).toString('hex');
let counter = 0;

/**
 * A 24-hex-digit id per request: a random per-process prefix and a counter. Unique across processes
 * without a CSPRNG call (and its syscall) per request; ids name requests, they are not secrets.
 */
export function nextRequestId(): string {
  counter = (counter + 1) >>> 0;
  if (counter === 0) prefix = randomBytes(8).toString('hex');
  return prefix + counter.toString(16).padStart(8, '0');
}
