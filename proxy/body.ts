// Reading a request's JSON body within the input limits: media type, content coding, size, time, nesting depth.
import type { IncomingMessage } from 'node:http';
import { contentCodingOf, decodeBody } from './content-coding.js';
import { GatewayError } from './errors.js';
import { nestsDeeperThan } from './json-depth.js';
import { checkJsonMediaType } from './media-type.js';
import { printable } from './printable.js';

export interface BodyLimits {
  /** The largest body in bytes, as sent and once decoded (413). */
  maxBytes: number;
  /** The deepest nesting of arrays and objects (400). */
  maxDepth: number;
  /** The body must have arrived within this time of the headers (408); Infinity for no limit. */
  timeoutMs: number;
}

/**
 * Reads and parses a JSON request body. Refuses a non-JSON content-type or an unknown content-encoding
 * (415), a body over the limit (413, at once: the rest is left for the caller to discard), a body that
 * is still arriving `timeoutMs` after `headersAt` (a performance.now() time; 408), and a body nested too
 * deep or not JSON (400).
 */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits, headersAt: number): Promise<unknown> {
  checkJsonMediaType(req.headers['content-type']);
  const coding = contentCodingOf(req.headers['content-encoding']);
  const sent = await readBytes(req, limits, headersAt);
  const bytes = coding === undefined ? sent : await decodeBody(coding, sent, limits.maxBytes);
  if (nestsDeeperThan(bytes, limits.maxDepth)) {
    throw new GatewayError('GW_ERR_REQUEST_TOO_DEEP', `The request body nests arrays and objects deeper than the limit of ${limits.maxDepth} levels.`);
  }
  return parseJson(bytes);
}

function readBytes(req: IncomingMessage, limits: BodyLimits, headersAt: number): Promise<Buffer> {
  const { maxBytes, timeoutMs } = limits;
  if (Number(req.headers['content-length']) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  // Usually the whole body came with the headers and sits in the stream's buffer: one read, no listeners.
  if (req.complete) return Promise.resolve(takeBuffered(req, maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        reject(tooLarge(maxBytes));
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = (): void => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    const onTimeout = (): void => {
      stop();
      reject(new GatewayError('GW_ERR_REQUEST_BODY_TIMEOUT', `The request body did not arrive within ${timeoutMs} ms of its headers.`));
    };
    const timer = timeoutMs === Infinity ? undefined : setTimeout(onTimeout, Math.max(0, headersAt + timeoutMs - performance.now()));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}

/** The body of a request whose every byte has arrived: `read()` returns the stream's whole buffer as one Buffer. */
function takeBuffered(req: IncomingMessage, maxBytes: number): Buffer {
  if (req.readableLength > maxBytes) throw tooLarge(maxBytes);
  return (req.read() as Buffer | null) ?? Buffer.alloc(0);
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', 'The request body is empty; send a JSON object.');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    // V8's message quotes a few characters of the body: escaped, so binary never reaches the client.
    const detail = error instanceof SyntaxError ? printable(error.message) : 'unreadable';
    throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', `The request body is not valid JSON: ${detail}`);
  }
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_TOO_LARGE', `The request body exceeds the limit of ${limit} bytes.`);
}
