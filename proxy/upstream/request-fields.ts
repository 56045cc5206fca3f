// What the upstream gets of a canonical request: per server flavor, the OpenAI chat-completions fields
// that server honours, plus the extras the operator enables (`upstream.extra_fields`). Everything else a
// client sent stays here: vLLM's `chat_template`, `ignore_eos`, `min_tokens`, `guided_json`, `vllm_xargs`,
// llama-server's native sampling options, SGLang's `input_ids`, and the gateway's own fields.

import { GATEWAY_REQUEST_FIELDS } from '../../core/canonical.js';
import type { RunningUsage } from './running-usage.js';

export const UPSTREAM_FLAVORS = ['vllm', 'llama-server', 'sglang', 'tgi', 'ollama', 'openai'] as const;

export type UpstreamFlavor = (typeof UPSTREAM_FLAVORS)[number];

/** Qwen3-style chat templates (Qwen3, DeepSeek V3.1's `thinking` aside) read this template argument. */
const TEMPLATE_SWITCH = 'chat_template_kwargs.enable_thinking';

/**
 * Fields every flavor honours. `model` is always the served name and `stream_options` is the gateway's own
 * (usage is always asked for on streams), so neither is copied from the request. `logit_bias` is in no list:
 * it can ban the end-of-turn token, which forces full-length generation as `ignore_eos` does.
 */
const COMMON = [
  'messages',
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'tools',
  'response_format',
  'stream',
];

interface FlavorSpec {
  fields: readonly string[];
  /** How the server reports the usage so far on a stream's chunks (running-usage.ts). */
  runningUsage: RunningUsage;
  /**
   * Names the stop string that ended an answer (vLLM `stop_reason`, SGLang `matched_stop`). False: it says
   * only `finish_reason: stop`, as for the end of turn, so the gateway matches the stop strings itself
   * (stop-matcher.ts) and never sends `stop` to it.
   */
  reportsStopSequence: boolean;
  /** Where the client's thinking switch goes (a dotted path, given true or false); undefined: the server has no such field. */
  thinkingField?: string;
  /** How the server takes a prefill (a trailing assistant message the answer continues). */
  prefill: PrefillHandling;
  /**
   * Whether the server enforces `response_format` `json_schema` and `json_object` (constrained decoding). False: such
   * a request is refused (structured-output.ts), never sent to be ignored.
   */
  enforcesFormats: boolean;
  /** The `reasoning_effort` values the server takes; undefined: it has no such field (the thinking switch still goes). */
  reasoningEfforts?: readonly string[];
}

/** vLLM's and SGLang's `reasoning_effort` (their request models' Literal). */
const THREE_EFFORTS = ['low', 'medium', 'high'];

/**
 * How a server takes a prefill, from its source: `continue-flag`, it continues the last turn when asked
 * (`continue_final_message: true, add_generation_prompt: false`) and answers with the continuation only
 * (vLLM, SGLang); `echoed`, it continues it unasked and repeats it at the start of the answer, streamed
 * and not (llama-server: its chat parser reads the prefill as the start of the answer), so the gateway
 * strips it; `as-is`, nothing is sent and nothing stripped (TGI and Ollama continue it unasked; OpenAI
 * starts a new turn).
 */
export type PrefillHandling = 'continue-flag' | 'echoed' | 'as-is';

/**
 * From each server's OpenAI-compatible request model (vLLM `ChatCompletionRequest`, llama-server's
 * `oaicompat_chat_params_parse`, SGLang `ChatCompletionRequest`, TGI `ChatRequest`, Ollama `openai.ChatCompletionRequest`).
 * `top_k` is not OpenAI's but Anthropic's (the message dialect passes it on), kept where the server has it.
 */
const FLAVORS: Readonly<Record<UpstreamFlavor, FlavorSpec>> = {
  vllm: {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'user', 'top_k'],
    runningUsage: 'continuous_usage_stats',
    reportsStopSequence: true,
    thinkingField: TEMPLATE_SWITCH,
    prefill: 'continue-flag',
    enforcesFormats: true,
    reasoningEfforts: THREE_EFFORTS,
  },
  'llama-server': {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'top_k'],
    runningUsage: 'timings_per_token',
    reportsStopSequence: false,
    thinkingField: TEMPLATE_SWITCH,
    prefill: 'echoed',
    enforcesFormats: true,
  },
  sglang: {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'user', 'top_k'],
    runningUsage: 'continuous_usage_stats',
    reportsStopSequence: true,
    thinkingField: TEMPLATE_SWITCH,
    prefill: 'continue-flag',
    enforcesFormats: true,
    reasoningEfforts: THREE_EFFORTS,
  },
  tgi: {
    fields: [...COMMON, 'tool_choice', 'logprobs', 'top_logprobs'],
    runningUsage: 'none',
    reportsStopSequence: false,
    prefill: 'as-is',
    // Its chat endpoint takes guidance as tools only; its `response_format` is its own `{type: json, value}`.
    enforcesFormats: false,
  },
  ollama: {
    fields: [...COMMON, 'logprobs', 'top_logprobs'],
    runningUsage: 'none',
    reportsStopSequence: false,
    prefill: 'as-is',
    enforcesFormats: true,
  },
  openai: {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'user'],
    runningUsage: 'none',
    reportsStopSequence: false,
    prefill: 'as-is',
    enforcesFormats: true,
    reasoningEfforts: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'],
  },
};

/** The upstream side of a request, decided once at start. */
export interface UpstreamFields {
  /** Fields copied from the canonical request into the upstream body. */
  readonly passed: ReadonlySet<string>;
  readonly runningUsage: RunningUsage;
  readonly reportsStopSequence: boolean;
  /** How the server takes a prefill: what the terminal sends with one, and whether it strips the echo. */
  readonly prefill: PrefillHandling;
  /** The path of the field the thinking switch sets (e.g. `['chat_template_kwargs', 'enable_thinking']`); undefined: never sent. */
  readonly thinkingPath?: readonly string[];
  /** The flavor, when its server cannot enforce a `response_format` schema: such a request is refused (structured-output.ts). */
  readonly formatsUnenforcedBy?: UpstreamFlavor;
  /** The `reasoning_effort` values sent on as they are; undefined: the field is never sent. */
  readonly reasoningEfforts?: ReadonlySet<string>;
}

/** The flavor's thinking field, unless the operator names another (`upstream.thinking_field`; '' for none). */
export function defaultThinkingField(flavor: UpstreamFlavor): string | undefined {
  return FLAVORS[flavor].thinkingField;
}

export function upstreamFields(
  flavor: UpstreamFlavor,
  extraFields: readonly string[],
  thinkingField: string | undefined = defaultThinkingField(flavor),
): UpstreamFields {
  const spec = FLAVORS[flavor];
  const passed = new Set([...spec.fields, ...extraFields]);
  for (const name of [...GATEWAY_REQUEST_FIELDS, 'model', 'stream_options']) passed.delete(name);
  const fields: UpstreamFields = {
    passed,
    runningUsage: spec.runningUsage,
    reportsStopSequence: spec.reportsStopSequence,
    prefill: spec.prefill,
    ...(spec.enforcesFormats ? {} : { formatsUnenforcedBy: flavor }),
    ...(spec.reasoningEfforts ? { reasoningEfforts: new Set(spec.reasoningEfforts) } : {}),
  };
  return thinkingField ? { ...fields, thinkingPath: thinkingField.split('.') } : fields;
}
