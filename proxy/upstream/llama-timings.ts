// llama-server's running usage. Asked with `timings_per_token: true` (running-usage.ts), its chunks carry
// `timings: {cache_n, prompt_n, predicted_n, …}`: the prompt tokens it took from its KV cache, the prompt
// tokens it processed, and the tokens generated so far. As canonical usage: prompt = cache_n + prompt_n,
// cached = cache_n, completion = predicted_n. Like any usage from the upstream it is checked next
// (usage-check.ts): a figure out of bounds is replaced by the gateway's own count.
import type { ChatChunk, ChatUsage } from '../../core/canonical.js';

/** Gives a chunk that has `timings` and no usage of its own (the final usage chunk has both) the usage they say; drops `timings`. */
export function usageFromTimings(chunk: ChatChunk): void {
  const carrier = chunk as ChatChunk & { timings?: unknown };
  const timings = carrier.timings;
  if (timings === undefined) return;
  delete carrier.timings;
  if (chunk.usage || typeof timings !== 'object' || timings === null) return;
  const { cache_n: cached, prompt_n: processed, predicted_n: predicted } = timings as Record<string, unknown>;
  // Unchecked, as the upstream's own usage is: a sum of two counts, else a value the check refuses.
  const prompt = isCount(cached) && isCount(processed) ? cached + processed : Number.NaN;
  chunk.usage = {
    prompt_tokens: prompt,
    completion_tokens: predicted,
    prompt_tokens_details: { cached_tokens: cached },
  } as unknown as ChatUsage;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
