// The sim as vLLM's OpenAI server (`vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice --tool-call-parser
// hermes`), its default; README.md describes every route and shape.
import { randomUUID } from 'node:crypto';
import { completionBody } from './chat-completion.js';
import { parseCacheSalt, parseChatRequest } from './chat-request.js';
import { streamChunks } from './chat-stream.js';
import { badRequest, SimError } from './errors.js';
import type { PromptCache, SimFlavor } from './flavor.js';
import { parseJson } from './http-io.js';
import { modelList } from './models-handler.js';
import { PrefixCache } from './prefix-cache.js';
import { detokenize, tokenize } from './tokenize-handler.js';

const KNOWN_PATHS = ['/v1/chat/completions', '/tokenize', '/detokenize', '/v1/models', '/health', '/sim/stats'];

export const vllmFlavor: SimFlavor = {
  name: 'vllm',
  chatPaths: ['/v1/chat/completions'],
  guarded: (path) => path.startsWith('/v1'),
  authorized: (headers, apiKey) => headers.authorization === `Bearer ${apiKey}`,
  unauthorized: () => ({ error: 'Unauthorized' }),
  route(key, body, model) {
    switch (key) {
      case 'POST /tokenize':
        return { status: 200, body: tokenize(body(), model.name, model.contextTokens) };
      case 'POST /detokenize':
        return { status: 200, body: detokenize(body(), model.name) };
      case 'GET /v1/models':
        return { status: 200, body: modelList(model.name, model.contextTokens) };
      case 'GET /health':
        return { status: 200 };
      default:
        return undefined;
    }
  },
  notFound: (_method, path) =>
    KNOWN_PATHS.includes(path)
      ? { status: 405, body: { detail: 'Method Not Allowed' } }
      : { status: 404, body: { detail: 'Not Found' } },
  parseBody: parseJson,
  errorBody: (err) => err.body(),
  chatRequest: (body) => ({
    request: parseChatRequest(body),
    prefill: null,
    reusesCache: true,
    cacheSalt: parseCacheSalt(body),
  }),
  checkModel(model, servedModel) {
    if (model !== null && model !== servedModel) {
      throw new SimError(404, `The model \`${model}\` does not exist.`, 'model');
    }
  },
  fitContext: checkContextLength,
  promptCache: () => prefixCache(new PrefixCache()),
  completionId: () => `chatcmpl-${randomUUID().replaceAll('-', '')}`,
  completionBody: ({ gen, meta }) => completionBody(gen, meta),
  streamChunks: ({ gen, meta, request, ttftMs, itlMs }) =>
    streamChunks(gen, meta, {
      includeUsage: request.includeUsage,
      continuousUsage: request.continuousUsage,
      ttftMs,
      itlMs,
    }),
  generationFailure: () => new SimError(500, 'Simulated failure in the middle of the answer (x-sim-fault error:N).'),
  // vLLM's serving_chat sends the error as a data event, then [DONE].
  streamError: (err) => `data: ${JSON.stringify(err.body())}\n\ndata: [DONE]\n\n`,
};

/** Prompt blocks cached on admission, the answer's once it is complete (prefix-cache.ts), per cache_salt. */
function prefixCache(cache: PrefixCache): PromptCache {
  return {
    admit(promptIds, _reuse, salt) {
      return {
        cachedTokens: cache.admit(promptIds, salt),
        finish: (outputIds) => {
          if (outputIds !== undefined) cache.complete(promptIds, outputIds, salt);
        },
      };
    },
  };
}

/** The max_tokens to generate with; a 400 with vLLM's wording when the request cannot fit. */
function checkContextLength(promptTokens: number, maxTokens: number | null, maxModelLen: number): number {
  if (maxTokens === null) {
    if (promptTokens >= maxModelLen) {
      throw badRequest(
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ` +
          `${promptTokens} tokens in the messages, Please reduce the length of the messages.`,
      );
    }
    return maxModelLen - promptTokens;
  }
  if (promptTokens + maxTokens > maxModelLen) {
    throw badRequest(
      `This model's maximum context length is ${maxModelLen} tokens. However, you requested ` +
        `${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). ` +
        'Please reduce the length of the messages or completion.',
    );
  }
  return maxTokens;
}
