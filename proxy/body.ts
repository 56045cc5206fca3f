import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.js';

/**
 * Reads a JSON request body, refusing more than `limit` bytes (413) and malformed JSON (400).
 * On a body that is too large the rest is discarded rather than the socket destroyed, so the 413 still
 * reaches the client.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) {
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.off('end', onEnd);
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      try {
        resolve(parseJson(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
      } catch (error) {
        reject(error);
      }
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
  });
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', 'The request body is empty; send a JSON object.');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : 'unreadable';
    throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', `The request body is not valid JSON: ${detail}`);
  }
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_TOO_LARGE', `The request body exceeds the limit of ${limit} bytes.`);
}
