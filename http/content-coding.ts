// The request's content-encoding: compressed bodies are decoded, never larger than the body limit.
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { GatewayError } from '../core/errors.js';
import { printable } from '../core/printable.js';

type Decode = (bytes: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

const DECODERS: ReadonlyMap<string, Decode> = new Map([
  ['gzip', promisify(gunzip)],
  ['x-gzip', promisify(gunzip)],
  ['deflate', promisify(inflate)],
  ['br', promisify(brotliDecompress)],
]);

/** The coding a content-encoding header names, or undefined for none (absent or `identity`); 415 for an unknown one. */
export function contentCodingOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const coding = header.trim().toLowerCase();
  if (coding === '' || coding === 'identity') return undefined;
  if (DECODERS.has(coding)) return coding;
  throw new GatewayError(
    'GW_ERR_REQUEST_UNSUPPORTED_ENCODING',
    `Unsupported content-encoding '${printable(header)}': send the body uncompressed, or as gzip, deflate or br.`,
    'content-encoding',
  );
}

/**
 * Decodes a body in `coding` (from contentCodingOf), off the main thread (zlib's pool). Decoding stops
 * as soon as the output passes `maxBytes`, so a small bomb costs no memory: 413.
 */
export async function decodeBody(coding: string, bytes: Buffer, maxBytes: number): Promise<Buffer> {
  try {
    return await DECODERS.get(coding)!(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new GatewayError(
        'GW_ERR_REQUEST_TOO_LARGE',
        `The request body exceeds the limit of ${maxBytes} bytes once decoded (content-encoding ${coding}).`,
      );
    }
    throw new GatewayError(
      'GW_ERR_REQUEST_UNDECODABLE_BODY',
      `The request body is not valid ${coding} data (content-encoding ${coding}).`,
      'content-encoding',
    );
  }
}
