// POST /v1/chat/completions, in vLLM's order: validate the body, check the model, render and
// tokenize the prompt, check the context length, look up the prompt cache, generate, answer. What
// differs between the played servers (the body's reading, the context check, the cache, the answer's
// shape) is the flavor's (flavor.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { planAnswer } from './answer.js';
import { sendCompletion } from './chat-completion.js';
import { chatPrompt } from './chat-prompt.js';
import { writeStream } from './chat-stream.js';
import { SimError } from './errors.js';
import type { ChatAnswer, PromptCache, SimFlavor } from './flavor.js';
import { firstTokenMs } from './first-token.js';
import { generate } from './generation.js';
import { resetSocket } from './http-io.js';
import { requestKnobs, type RequestKnobs } from './request-knobs.js';
import type { ReasoningField, ResponseMeta } from './usage.js';

export interface ChatContext {
  flavor: SimFlavor;
  servedModel: string;
  maxModelLen: number;
  promptCache: PromptCache;
  defaults: RequestKnobs;
  /** The model thinks first (unless the request switches it off) and the thinking is split off: vLLM's `--reasoning-parser qwen3`. */
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
  /** Told the delay the answer's first byte waits for (TTFT + prefill), as it starts that wait. */
  onFirstToken: (ms: number) => void = () => {},
): Promise<void> {
  const { flavor } = ctx;
  const knobs = requestKnobs(req.headers, ctx.defaults);
  if (knobs.fault.kind === 'reset') {
    resetSocket(req.socket);
    return;
  }
  if (knobs.fault.kind === 'status') {
    const status = knobs.fault.status ?? 500;
    throw new SimError(status, `Simulated upstream failure (x-sim-fault ${status}).`);
  }
  const { request, prefill, reusesCache, cacheSalt } = flavor.chatRequest(body());
  flavor.checkModel(request.model, ctx.servedModel);
  const prompt = chatPrompt(request);
  const maxTokens = flavor.fitContext(prompt.ids.length, request.maxTokens, ctx.maxModelLen);
  const admission = ctx.promptCache.admit(prompt.ids, reusesCache, cacheSalt);
  // One figure for both shapes: before the first chunk of a stream, before the body otherwise.
  const ttftMs = firstTokenMs(knobs, prompt.ids.length, admission.cachedTokens);
  let complete = false;
  try {
    const answer = planAnswer(request, prompt, knobs.outputTokens, ctx.reasoningParser);
    const gen = generate(answer, { maxTokens, stop: request.stop, includeStopStr: request.includeStopStrInOutput });
    const meta: ResponseMeta = {
      id: flavor.completionId(),
      created: Math.floor(Date.now() / 1000),
      model: ctx.servedModel,
      promptTokens: prompt.ids.length,
      cachedTokens: admission.cachedTokens,
      reasoningField: ctx.reasoningField,
    };
    if (knobs.usage !== undefined) meta.usageOverride = knobs.usage;
    const chat: ChatAnswer = { request, prompt, gen, meta, prefill, ttftMs, itlMs: knobs.itlMs };
    if (knobs.fault.kind === 'error' && !request.stream) throw flavor.generationFailure();
    if (request.stream) {
      const chunks = flavor.streamChunks(chat);
      onFirstToken(chunks[0]?.delayMs ?? 0);
      const failure = flavor.streamError(flavor.generationFailure());
      complete = await writeStream(res, req.socket, chunks, knobs.fault, signal, failure);
    } else {
      onFirstToken(ttftMs);
      complete = await sendCompletion(res, req.socket, flavor.completionBody(chat), ttftMs, knobs.fault, signal);
    }
    if (complete) admission.finish(gen.ids);
  } finally {
    if (!complete) admission.finish(undefined);
  }
}
