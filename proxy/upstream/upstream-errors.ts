import { GatewayError } from '../errors.js';
import type { UpstreamResponse } from './upstream-response.js';

/** Reads an upstream error response and turns it into the gateway error the client should see. */
export async function upstreamStatusError(response: UpstreamResponse, hideName: (text: string) => string): Promise<GatewayError> {
  const text = await response.text().catch(() => '');
  const detail = hideName(upstreamMessage(text));
  const status = response.statusCode;
  if (status === 400 || status === 413 || status === 422) {
    return new GatewayError('GW_ERR_UPSTREAM_REJECTED', detail || 'The model server rejected the request.');
  }
  if (status === 429 || status === 503) return new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'The model server is overloaded; try again shortly.');
  if (status === 504) return new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', 'The model server timed out.');
  return new GatewayError('GW_ERR_UPSTREAM_FAILED', `The model server answered ${status}.`);
}

/** An error met while reading an upstream stream that had already started. */
export function streamReadError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = errorCode(error);
  if (code === 'UND_ERR_BODY_TIMEOUT') return new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', 'The model server stopped sending in the middle of the response.');
  return new GatewayError('GW_ERR_UPSTREAM_STREAM_CUT', 'The connection to the model server broke in the middle of the response.');
}

/** The message of an OpenAI-style (`{error:{message}}`) or vLLM-style (`{message}`) error body. */
function upstreamMessage(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) {
      const record = parsed as { error?: unknown; message?: unknown };
      if (typeof record.error === 'object' && record.error !== null && typeof (record.error as { message?: unknown }).message === 'string') {
        return (record.error as { message: string }).message;
      }
      if (typeof record.message === 'string') return record.message;
      if (typeof record.error === 'string') return record.error;
    }
  } catch {
    // not JSON: fall through to the text itself
  }
  return text.slice(0, 500);
}

/** The `code` of a Node or undici error (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, …), or ''. */
export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}
