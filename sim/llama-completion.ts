// llama-server's non-streamed chat answer (server_task_result_cmpl_final::to_json_oaicompat_chat), its
// fields in its order: no `stop_reason` (a stop string ends with `finish_reason: "stop"`, the same as
// the end of turn), `content` "" rather than null, `reasoning_content` and `tool_calls` only when
// there are some, a tool call's `id` last; usage always with `prompt_tokens_details.cached_tokens`;
// and the slot's `timings`.
import type { ChatAnswer } from './flavor.js';
import type { LlamaAnswer, LlamaToolCall } from './llama-answer.js';
import { LLAMA_BUILD_INFO } from './llama-server-info.js';
import { llamaTimings, type LlamaTimings } from './llama-timings.js';
import type { ResponseMeta } from './usage.js';

export interface LlamaUsage {
  completion_tokens: number;
  prompt_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export interface LlamaMessage {
  role: 'assistant';
  content: string;
  reasoning_content?: string;
  tool_calls?: LlamaToolCall[];
}

export interface LlamaCompletionBody {
  choices: Array<{ finish_reason: string; index: number; message: LlamaMessage }>;
  created: number;
  model: string;
  system_fingerprint: string;
  object: 'chat.completion';
  usage: LlamaUsage;
  id: string;
  timings: LlamaTimings;
}

export function llamaCompletionBody(answer: ChatAnswer, view: LlamaAnswer): LlamaCompletionBody {
  const { meta, gen } = answer;
  const message: LlamaMessage = { role: 'assistant', content: view.content };
  if (view.reasoning) message.reasoning_content = view.reasoning;
  if (view.toolCalls.length > 0) message.tool_calls = view.toolCalls;
  return {
    choices: [{ finish_reason: view.finishReason, index: 0, message }],
    created: meta.created,
    model: meta.model,
    system_fingerprint: LLAMA_BUILD_INFO,
    object: 'chat.completion',
    usage: llamaUsage(meta, gen.ids.length),
    id: meta.id,
    timings: answerTimings(answer),
  };
}

/** usage_json_oaicompat(): the counted figures, or `x-sim-usage`'s. */
export function llamaUsage(meta: ResponseMeta, completionTokens: number): LlamaUsage {
  const completion = meta.usageOverride?.completion ?? completionTokens;
  const prompt = meta.usageOverride?.prompt ?? meta.promptTokens;
  return {
    completion_tokens: completion,
    prompt_tokens: prompt,
    total_tokens: completion + prompt,
    prompt_tokens_details: { cached_tokens: meta.usageOverride?.cached ?? meta.cachedTokens },
  };
}

/** The timings after `generated` tokens (by default: the whole answer). */
export function answerTimings(answer: ChatAnswer, generated = answer.gen.ids.length): LlamaTimings {
  const input = {
    promptTokens: answer.meta.promptTokens,
    cachedTokens: answer.meta.cachedTokens,
    generated,
    ttftMs: answer.ttftMs,
    itlMs: answer.itlMs,
  };
  const override = answer.meta.usageOverride;
  return llamaTimings(override === undefined ? input : { ...input, override });
}
