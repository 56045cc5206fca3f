// The admin listener's HTTP plumbing: the headers every answer carries, JSON answers, JSON bodies.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { readJsonBody, type BodyLimits } from '../http/body.js';
import { AdminError, asAdminError } from './errors.js';

/** Request bodies of the admin API are small: an org with its members at most. */
export const ADMIN_BODY_LIMIT_BYTES = 64 * 1024;
const ADMIN_BODY_LIMITS: BodyLimits = { maxBytes: ADMIN_BODY_LIMIT_BYTES, maxDepth: 16 };

/** On every answer: no framing, no referrer, no caching, scripts and styles only from the listener itself. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  // No body: a 204, or a redirect (its `location` in the headers).
  const text = status === 204 || body === undefined ? undefined : JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    ...(text === undefined
      ? status === 204
        ? {}
        : { 'content-length': 0 }
      : { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: AdminError): void {
  sendJson(res, error.status, error.toJSON(), error.headers);
}

/** The request's JSON body, which must be an object (413 over the limit, 400 if malformed). */
export async function readObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await readJsonBody(req, ADMIN_BODY_LIMITS, performance.now());
  } catch (error) {
    throw asAdminError(error);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AdminError('invalid_request', 'the request body must be a JSON object', '(body)');
  return body as Record<string, unknown>;
}

/** Whether the client reached us over TLS: on this socket, or at a reverse proxy that says so. */
export function isHttps(req: IncomingMessage): boolean {
  return (req.socket as TLSSocket).encrypted === true || req.headers['x-forwarded-proto'] === 'https';
}

/** The origin the browser sees for this listener: scheme and the Host it asked for. */
export function ownOrigin(req: IncomingMessage): string {
  return `${isHttps(req) ? 'https' : 'http'}://${req.headers.host ?? ''}`;
}
