// A request's body as the bytes that came, for a signature computed over them (Stripe's webhook): never
// parsed and re-serialised before the check. Bounded: a larger body is a 413 before it is all read.
import type { IncomingMessage } from 'node:http';
import { AdminError } from '../../admin/errors.js';

export async function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(maxBytes: number): AdminError {
  return new AdminError('body_too_large', `the body is larger than ${maxBytes} bytes`);
}
