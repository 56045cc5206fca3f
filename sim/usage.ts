// vLLM's UsageInfo, fields in its order. prompt_tokens includes the cached ones, as in OpenAI.

export interface Usage {
  prompt_tokens: number;
  total_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

/** Figures that replace the counted ones in every usage of a request (`x-sim-usage`): a misbehaving server. */
export interface UsageOverride {
  prompt?: number;
  completion?: number;
  cached?: number;
}

export function usage(
  promptTokens: number,
  completionTokens: number,
  cachedTokens?: number,
  override?: UsageOverride,
): Usage {
  const prompt = override?.prompt ?? promptTokens;
  const completion = override?.completion ?? completionTokens;
  const out: Usage = {
    prompt_tokens: prompt,
    total_tokens: prompt + completion,
    completion_tokens: completion,
  };
  const cached = cachedTokens === undefined ? undefined : (override?.cached ?? cachedTokens);
  if (cached !== undefined) out.prompt_tokens_details = { cached_tokens: cached };
  return out;
}

export type ReasoningField = 'reasoning_content' | 'reasoning';

/** What every response of one request shares. */
export interface ResponseMeta {
  /** `chatcmpl-` + 32 hex digits, the same on every chunk. */
  id: string;
  created: number;
  model: string;
  promptTokens: number;
  cachedTokens: number;
  /** The name of the reasoning field in messages and deltas: vLLM's older `reasoning_content` or its newer `reasoning`. */
  reasoningField: ReasoningField;
  /** `x-sim-usage`, when the request set it. */
  usageOverride?: UsageOverride;
}
