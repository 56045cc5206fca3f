// One HTTP call of a search adapter, with the error mapping every adapter shares: 429 → too_many_requests;
// 400/413/414/422 (the provider refused the query) → invalid_input; any other status, a network failure,
// a body that is not JSON or is too large, the timeout or the caller's abort → unavailable. Only
// SearchErrors leave this file; their messages name the provider and the status, never a header.
import { request } from 'undici';
import { SearchError } from './provider.js';
import { readCappedText, type ReadableBody } from '../../../core/capped-text.js';

export interface ProviderCall {
  /** The provider's name, for messages. */
  provider: string;
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** A JSON body (POST). */
  json?: unknown;
  /** The query's signal: the client went away, or the plugin gave up. */
  signal: AbortSignal;
  timeoutMs: number;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const INVALID_QUERY_STATUSES = new Set([400, 413, 414, 422]);

/** Sends the call and returns the parsed JSON body of a 2xx answer; throws SearchError otherwise. */
export async function callProvider(call: ProviderCall): Promise<unknown> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = AbortSignal.any([call.signal, timeout]);
  const failure = (error: unknown): SearchError => {
    if (error instanceof SearchError) return error;
    if (call.signal.aborted) return new SearchError('unavailable', `${call.provider}: the search was aborted`);
    if (timeout.aborted)
      return new SearchError('unavailable', `${call.provider}: no answer within ${call.timeoutMs} ms`);
    const code = (error as { code?: unknown }).code;
    return new SearchError(
      'unavailable',
      `${call.provider}: ${typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)}`,
    );
  };
  try {
    const headers = {
      accept: 'application/json',
      ...call.headers,
      ...(call.json !== undefined ? { 'content-type': 'application/json' } : {}),
    };
    const response = await request(call.url, {
      method: call.method,
      headers,
      body: call.json !== undefined ? JSON.stringify(call.json) : null,
      signal,
    });
    const text = await readCapped(response.body, call.provider);
    if (response.statusCode >= 200 && response.statusCode < 300) return parseJson(text, call.provider);
    throw statusError(call.provider, response.statusCode, text);
  } catch (error) {
    throw failure(error);
  }
}

function statusError(provider: string, status: number, body: string): SearchError {
  const detail = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  const message = `${provider}: HTTP ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 429) return new SearchError('too_many_requests', message);
  if (INVALID_QUERY_STATUSES.has(status)) return new SearchError('invalid_input', message);
  return new SearchError('unavailable', message);
}

async function readCapped(body: ReadableBody, provider: string): Promise<string> {
  const text = await readCappedText(body, MAX_BODY_BYTES);
  if (text === undefined)
    throw new SearchError('unavailable', `${provider}: the answer is larger than ${MAX_BODY_BYTES} bytes`);
  return text;
}

function parseJson(text: string, provider: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SearchError('unavailable', `${provider}: the answer is not JSON`);
  }
}

/** `base` with `path` appended to its path (a base may carry a path prefix, e.g. a SearxNG under /searx). */
export function endpoint(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  return url;
}
