// The sim as llama.cpp's llama-server (`llama-server -m … --jinja`, single model, Qwen3's template),
// as tools/server/ of llama.cpp de3ff81 answers; each difference from vLLM lives in its llama-* file.
import type { IncomingHttpHeaders } from 'node:http';
import type { ChatAnswer, SimFlavor } from './flavor.js';
import { llamaAnswer, type LlamaAnswer } from './llama-answer.js';
import { llamaCompletionBody } from './llama-completion.js';
import {
  badJson,
  ContextSizeError,
  kvCacheFull,
  LLAMA_NOT_FOUND,
  LLAMA_UNAUTHORIZED,
  llamaErrorBody,
} from './llama-errors.js';
import { parseLlamaChatRequest } from './llama-request.js';
import { llamaRoute } from './llama-routes.js';
import { llamaStreamChunks } from './llama-stream.js';
import { randomAlphanumeric, seededAlphanumeric } from './random-id.js';
import { SlotCache } from './slot-cache.js';

/** Paths open without the API key. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/health', '/v1/health', '/sim/stats']);

export const llamaServerFlavor: SimFlavor = {
  name: 'llama-server',
  chatPaths: ['/v1/chat/completions', '/chat/completions'],
  guarded: (path) => !PUBLIC_PATHS.has(path),
  authorized: (headers, apiKey) => given(headers) === apiKey,
  unauthorized: () => LLAMA_UNAUTHORIZED,
  route: llamaRoute,
  notFound: () => ({ status: 404, body: LLAMA_NOT_FOUND }),
  parseBody(text) {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw badJson(err);
    }
  },
  errorBody: llamaErrorBody,
  chatRequest: parseLlamaChatRequest,
  // One model, whatever the request names.
  checkModel: () => undefined,
  fitContext(promptTokens, maxTokens, contextTokens) {
    if (promptTokens >= contextTokens) throw new ContextSizeError(promptTokens, contextTokens);
    // A longer max_tokens is let through; generation stops where the context ends.
    return Math.min(maxTokens ?? Infinity, contextTokens - promptTokens);
  },
  promptCache: (slots) => new SlotCache(slots),
  completionId: () => `chatcmpl-${randomAlphanumeric()}`,
  completionBody: (answer) => llamaCompletionBody(answer, view(answer)),
  streamChunks: (answer) => llamaStreamChunks(answer, view(answer)),
  generationFailure: kvCacheFull,
  streamError: (err) => `data: ${JSON.stringify(llamaErrorBody(err))}\n\n`,
};

function view(answer: ChatAnswer): LlamaAnswer {
  return llamaAnswer(answer.gen, answer.prefill, (index) => seededAlphanumeric(answer.prompt.seed, index));
}

/** The key as llama-server takes it: `Authorization` (with or without `Bearer `), else `X-Api-Key`. */
function given(headers: IncomingHttpHeaders): string {
  const value = headers.authorization || headers['x-api-key'] || '';
  const key = Array.isArray(value) ? (value[0] ?? '') : value;
  return key.startsWith('Bearer ') ? key.slice('Bearer '.length) : key;
}
