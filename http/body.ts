import { isUtf8 } from 'node:buffer';
// Reading a request's JSON body within the input limits: media type, content coding, size, time, nesting depth.
import type { IncomingMessage } from 'node:http';
import type { BodyReservation } from './body-budget.js';
import { contentCodingOf, decodeBody } from './content-coding.js';
import type { Deadlines } from './deadlines.js';
import { GatewayError } from '../core/errors.js';
import { nestsDeeperThan } from './json-depth.js';
import { checkJsonMediaType } from './media-type.js';
import { printable } from '../core/printable.js';

export interface BodyLimits {
  /** The largest body in bytes, as sent and once decoded (413). */
  maxBytes: number;
  /** The deepest nesting of arrays and objects (400). */
  maxDepth: number;
  /** The body must have arrived `ms` after the headers (408), as checked by `deadlines`; none if absent. */
  timeout?: { ms: number; deadlines: Deadlines };
}

/** Where a body's bytes are taken from the node's budget (http/body-budget.ts); none: unbudgeted. */
type Held = BodyReservation | undefined;

/**
 * Reads and parses a JSON request body. Refuses a non-JSON content-type or an unknown content-encoding
 * (415), a body over the limit (413, at once: the rest is left for the caller to discard), a body that
 * is still arriving when its time is up (408; `headersAt` is when the headers came, a performance.now()
 * time), a body the node's budget of bodies in flight cannot hold (503; `held` takes its bytes, as sent and
 * decoded), and a body nested too deep or not JSON (400).
 */
export async function readJsonBody(
  req: IncomingMessage,
  limits: BodyLimits,
  headersAt: number,
  held?: BodyReservation,
): Promise<unknown> {
  checkJsonMediaType(req.headers['content-type']);
  const coding = contentCodingOf(req.headers['content-encoding']);
  const sent = await readBytes(req, limits, headersAt, held);
  const bytes = coding === undefined ? sent : await decodeBody(coding, sent, limits.maxBytes);
  if (bytes !== sent) take(held, bytes.length);
  if (nestsDeeperThan(bytes, limits.maxDepth)) {
    throw new GatewayError(
      'GW_ERR_REQUEST_TOO_DEEP',
      `The request body nests arrays and objects deeper than the limit of ${limits.maxDepth} levels.`,
    );
  }
  return parseJson(bytes);
}

function readBytes(req: IncomingMessage, limits: BodyLimits, headersAt: number, held: Held): Promise<Buffer> {
  const { maxBytes, timeout } = limits;
  if (Number(req.headers['content-length']) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  // A body that arrived while the gateway was waiting (on a remote store, say) sits whole in the stream's buffer.
  if (req.complete) return Promise.resolve(takeBuffered(req, maxBytes, held));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const deadlines = timeout?.deadlines;
    const stop = (): void => {
      if (deadline !== undefined) deadlines?.delete(deadline);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', fail);
    };
    const fail = (error: Error): void => {
      stop();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) fail(tooLarge(maxBytes));
      else if (held !== undefined && !held.take(chunk.length)) fail(bodiesFull());
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const deadline =
      timeout === undefined ? undefined : { at: headersAt + timeout.ms, expire: () => fail(timedOut(timeout.ms)) };
    if (deadline !== undefined) deadlines?.add(deadline);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', fail);
  });
}

/** The body of a request whose every byte has arrived: `read()` returns the stream's whole buffer as one Buffer. */
function takeBuffered(req: IncomingMessage, maxBytes: number, held: Held): Buffer {
  if (req.readableLength > maxBytes) throw tooLarge(maxBytes);
  take(held, req.readableLength);
  return (req.read() as Buffer | null) ?? Buffer.alloc(0);
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0)
    throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', 'The request body is empty; send a JSON object.');
  // JSON is UTF-8 (RFC 8259): invalid bytes would otherwise become U+FFFD and reach the model silently.
  if (!isUtf8(bytes))
    throw new GatewayError(
      'GW_ERR_REQUEST_MALFORMED_JSON',
      'The request body is not valid UTF-8; JSON must be encoded in UTF-8.',
    );
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    // V8's message quotes a few characters of the body: escaped, so binary never reaches the client.
    const detail = error instanceof SyntaxError ? printable(error.message) : 'unreadable';
    throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', `The request body is not valid JSON: ${detail}`);
  }
}

function timedOut(ms: number): GatewayError {
  return new GatewayError(
    'GW_ERR_REQUEST_BODY_TIMEOUT',
    `The request body did not arrive within ${ms} ms of its headers.`,
  );
}

function take(held: Held, bytes: number): void {
  if (held !== undefined && !held.take(bytes)) throw bodiesFull();
}

function bodiesFull(): GatewayError {
  return new GatewayError(
    'GW_ERR_SERVER_BODIES_IN_FLIGHT',
    'This gateway node holds as many request bodies as it may at once; retry shortly.',
  );
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_TOO_LARGE', `The request body exceeds the limit of ${limit} bytes.`);
}
