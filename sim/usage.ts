// vLLM's UsageInfo, fields in its order. prompt_tokens includes the cached ones, as in OpenAI.

export interface Usage {
  prompt_tokens: number;
  total_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export function usage(promptTokens: number, completionTokens: number, cachedTokens?: number): Usage {
  const out: Usage = {
    prompt_tokens: promptTokens,
    total_tokens: promptTokens + completionTokens,
    completion_tokens: completionTokens,
  };
  if (cachedTokens !== undefined) out.prompt_tokens_details = { cached_tokens: cachedTokens };
  return out;
}

/** What every response of one request shares. */
export interface ResponseMeta {
  /** `chatcmpl-` + 32 hex digits, the same on every chunk. */
  id: string;
  created: number;
  model: string;
  promptTokens: number;
  cachedTokens: number;
}
