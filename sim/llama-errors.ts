// llama-server's error answers (tools/server/server-common.cpp, format_error_response):
// `{"error": {"code", "message", "type"}}`, the type named after the kind of error and the HTTP status
// its code; a prompt longer than the context adds `n_prompt_tokens` and `n_ctx`. Its 404 and 401
// bodies come from the HTTP layer, with the fields in another order.
import { SimError } from './errors.js';

const TYPES: ReadonlyMap<number, string> = new Map([
  [400, 'invalid_request_error'],
  [401, 'authentication_error'],
  [403, 'permission_error'],
  [404, 'not_found_error'],
  [500, 'server_error'],
  [501, 'not_supported_error'],
  [503, 'unavailable_error'],
]);

/** A prompt that does not fit the slot's context: 400 `exceed_context_size_error`. */
export class ContextSizeError extends SimError {
  readonly promptTokens: number;
  readonly contextTokens: number;

  constructor(promptTokens: number, contextTokens: number) {
    super(
      400,
      `request (${promptTokens} tokens) exceeds the available context size (${contextTokens} tokens), try increasing it`,
      null,
      'exceed_context_size_error',
    );
    this.promptTokens = promptTokens;
    this.contextTokens = contextTokens;
  }
}

export function llamaErrorBody(err: SimError): { error: Record<string, string | number> } {
  if (err instanceof ContextSizeError) {
    return {
      error: {
        code: err.status,
        message: err.message,
        type: err.type,
        n_prompt_tokens: err.promptTokens,
        n_ctx: err.contextTokens,
      },
    };
  }
  // A status the server never answers itself (a status fault) keeps its code, typed as a server error.
  return { error: { code: err.status, message: err.message, type: TYPES.get(err.status) ?? 'server_error' } };
}

export const LLAMA_NOT_FOUND = { error: { message: 'File Not Found', type: 'not_found_error', code: 404 } };

export const LLAMA_UNAUTHORIZED = { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } };

/** What a JSON body that does not parse gets: the parser's exception, answered as a 500 (llama-server's own). */
export function badJson(err: unknown): SimError {
  const detail = err instanceof Error ? err.message : String(err);
  return new SimError(500, `[json.exception.parse_error.101] parse error: ${detail}`);
}

/** llama-server's answer when its KV cache fills up in the middle of an answer. */
export function kvCacheFull(): SimError {
  return new SimError(500, 'Context size has been exceeded.');
}
