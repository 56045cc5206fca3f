// What the upstream gets of a canonical request: per server flavor, the OpenAI chat-completions fields
// that server honours, plus the extras the operator enables (`upstream.extra_fields`). Everything else a
// client sent stays here: vLLM's `chat_template`, `ignore_eos`, `min_tokens`, `guided_json`, `vllm_xargs`,
// llama-server's native sampling options, SGLang's `input_ids`, and the gateway's own fields.

export const UPSTREAM_FLAVORS = ['vllm', 'llama-server', 'sglang', 'tgi', 'ollama', 'openai'] as const;

export type UpstreamFlavor = (typeof UPSTREAM_FLAVORS)[number];

/**
 * Canonical-request fields the gateway keeps for itself (the search and promptcache plugins', and the
 * client's thinking switch, sent as the flavor's own field); never sent as they are, whatever the config says.
 */
export const GATEWAY_FIELDS: readonly string[] = [
  'web_search',
  'web_search_replay',
  'cache_blocks',
  'enable_thinking',
  'thinking_replay',
];

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
  /** Honours `stream_options.continuous_usage_stats` (usage on every chunk, which the message dialect asks for). */
  continuousUsage: boolean;
  /** Where the client's thinking switch goes (a dotted path, given true or false); undefined: the server has no such field. */
  thinkingField?: string;
}

/**
 * From each server's OpenAI-compatible request model (vLLM `ChatCompletionRequest`, llama-server's
 * `oaicompat_chat_params_parse`, SGLang `ChatCompletionRequest`, TGI `ChatRequest`, Ollama `openai.ChatCompletionRequest`).
 * `top_k` is not OpenAI's but Anthropic's (the message dialect passes it on), kept where the server has it.
 */
const FLAVORS: Readonly<Record<UpstreamFlavor, FlavorSpec>> = {
  vllm: {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'user', 'top_k'],
    continuousUsage: true,
    thinkingField: TEMPLATE_SWITCH,
  },
  'llama-server': {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'top_k'],
    continuousUsage: false,
    thinkingField: TEMPLATE_SWITCH,
  },
  sglang: {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'user', 'top_k'],
    continuousUsage: true,
    thinkingField: TEMPLATE_SWITCH,
  },
  tgi: { fields: [...COMMON, 'tool_choice', 'logprobs', 'top_logprobs'], continuousUsage: false },
  ollama: { fields: [...COMMON, 'logprobs', 'top_logprobs'], continuousUsage: false },
  openai: {
    fields: [...COMMON, 'tool_choice', 'parallel_tool_calls', 'logprobs', 'top_logprobs', 'n', 'user'],
    continuousUsage: false,
  },
};

/** The upstream side of a request, decided once at start. */
export interface UpstreamFields {
  /** Fields copied from the canonical request into the upstream body. */
  readonly passed: ReadonlySet<string>;
  readonly continuousUsage: boolean;
  /** The path of the field the thinking switch sets (e.g. `['chat_template_kwargs', 'enable_thinking']`); undefined: never sent. */
  readonly thinkingPath?: readonly string[];
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
  for (const name of [...GATEWAY_FIELDS, 'model', 'stream_options']) passed.delete(name);
  const fields: UpstreamFields = { passed, continuousUsage: spec.continuousUsage };
  return thinkingField ? { ...fields, thinkingPath: thinkingField.split('.') } : fields;
}
