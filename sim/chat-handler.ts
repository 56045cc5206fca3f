// POST /v1/chat/completions, in vLLM's order: validate the body, check the model, render and
// tokenize the prompt, check the context length, look up the prefix cache, generate, answer.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { planAnswer } from './answer.js';
import { completionBody, sendCompletion } from './chat-completion.js';
import { chatPrompt } from './chat-prompt.js';
import { parseChatRequest } from './chat-request.js';
import { streamChunks, writeStream } from './chat-stream.js';
import { SimError, badRequest } from './errors.js';
import { generate } from './generation.js';
import { resetSocket } from './http-io.js';
import type { PrefixCache } from './prefix-cache.js';
import { requestKnobs, type RequestKnobs } from './request-knobs.js';
import type { ReasoningField, ResponseMeta } from './usage.js';

export interface ChatContext {
  servedModel: string;
  maxModelLen: number;
  prefixCache: PrefixCache;
  defaults: RequestKnobs;
  /** vLLM's `--reasoning-parser qwen3`: the model thinks first (unless the request switches it off) and the thinking is split off. */
  reasoningParser: boolean;
  reasoningField: ReasoningField;
}

/** Answers the request; throws a SimError for an error answered before any byte was sent. */
export async function handleChat(
  req: IncomingMessage,
  res: ServerResponse,
  /** The JSON body; throws a 400 for a malformed one, read only after any fault has acted. */
  body: () => unknown,
  ctx: ChatContext,
  signal: AbortSignal,
): Promise<void> {
  const knobs = requestKnobs(req.headers, ctx.defaults);
  if (knobs.fault.kind === 'reset') {
    resetSocket(req.socket);
    return;
  }
  if (knobs.fault.kind === 'status') {
    const status = knobs.fault.status ?? 500;
    throw new SimError(status, `Simulated upstream failure (x-sim-fault ${status}).`);
  }
  const request = parseChatRequest(body());
  if (request.model !== null && request.model !== ctx.servedModel) {
    throw new SimError(404, `The model \`${request.model}\` does not exist.`, 'model');
  }
  const prompt = chatPrompt(request);
  const maxTokens = checkContextLength(prompt.ids.length, request.maxTokens, ctx.maxModelLen);
  const cachedTokens = ctx.prefixCache.admit(prompt.ids);
  const answer = planAnswer(request, prompt, knobs.outputTokens, ctx.reasoningParser);
  const gen = generate(answer, { maxTokens, stop: request.stop, includeStopStr: request.includeStopStrInOutput });
  const meta: ResponseMeta = {
    id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
    created: Math.floor(Date.now() / 1000),
    model: ctx.servedModel,
    promptTokens: prompt.ids.length,
    cachedTokens,
    reasoningField: ctx.reasoningField,
  };
  if (knobs.usage !== undefined) meta.usageOverride = knobs.usage;
  const complete = request.stream
    ? await writeStream(
        res,
        req.socket,
        streamChunks(gen, meta, {
          includeUsage: request.includeUsage,
          continuousUsage: request.continuousUsage,
          ttftMs: knobs.ttftMs,
          itlMs: knobs.itlMs,
        }),
        knobs.fault,
        signal,
      )
    : await sendCompletion(res, req.socket, completionBody(gen, meta), knobs.ttftMs, knobs.fault, signal);
  if (complete) ctx.prefixCache.complete(prompt.ids, gen.ids);
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
