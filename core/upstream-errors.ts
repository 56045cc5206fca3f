import { GatewayError } from './errors.js';
import { rejectionMessage } from './upstream-rejection.js';

/** Where the upstream's own error text goes: the operator's log, never the client (pino's logger fits). */
export interface UpstreamErrorLog {
  warn(fields: object, message: string): void;
}

/** What an error needs of the upstream's answer (upstream-response.ts's UpstreamResponse is one). */
export interface UpstreamErrorResponse {
  readonly statusCode: number;
  /** The body, of at most `maxBytes` (rejects past it). */
  text(maxBytes: number): Promise<string>;
}

/** How much of an upstream error body the log line keeps. */
const LOGGED_CHARS = 1000;
/** The largest error body read: the reason is in its first 4 KB (upstream-rejection.ts); a longer one is dropped unread. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads an upstream error response and turns it into the gateway error the client should see: the
 * gateway's own message for the status (400/413/422 → 400 with a generic reason); the upstream's
 * text, truncated, goes to the log at warn.
 */
export async function upstreamStatusError(
  response: UpstreamErrorResponse,
  log: UpstreamErrorLog,
): Promise<GatewayError> {
  const text = await response.text(ERROR_BODY_BYTES).catch(() => '');
  const status = response.statusCode;
  log.warn(
    { upstreamStatus: status, upstreamError: text.slice(0, LOGGED_CHARS) },
    'the model server answered with an error',
  );
  if (status === 400 || status === 413 || status === 422)
    return new GatewayError('GW_ERR_UPSTREAM_REJECTED', rejectionMessage(status, text));
  if (status === 429 || status === 503)
    return new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'The model server is overloaded; try again shortly.');
  if (status === 504) return new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', 'The model server timed out.');
  return new GatewayError('GW_ERR_UPSTREAM_FAILED', `The model server answered ${status}.`);
}

/** An error met while reading an upstream stream that had already started. */
export function streamReadError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = errorCode(error);
  if (code === 'UND_ERR_BODY_TIMEOUT')
    return new GatewayError(
      'GW_ERR_UPSTREAM_TIMEOUT',
      'The model server stopped sending in the middle of the response.',
    );
  return new GatewayError(
    'GW_ERR_UPSTREAM_STREAM_CUT',
    'The connection to the model server broke in the middle of the response.',
  );
}

/** Errors that mean the request never reached a working server, so trying again is safe. */
export const CONNECTION_FAILURES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** The `code` of a Node or undici error (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, …), or ''. */
export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}
