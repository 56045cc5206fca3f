// What a request is billed for, read from the upstream's usage (OpenAI's counting: prompt_tokens
// includes the cached and the cache-written tokens, so they are taken out of `input`, never counted
// twice), or estimated when the upstream never sent usage.
import type { ChatUsage } from '../../core/canonical.js';
import type { BilledUsage } from './price.js';

export function billedFromUsage(usage: ChatUsage, searches: number): BilledUsage {
  const details = usage.prompt_tokens_details;
  const cacheRead = count(details?.cached_tokens);
  const cacheWrite5m = count(details?.cache_creation?.ephemeral_5m_input_tokens);
  const cacheWrite1h = count(details?.cache_creation?.ephemeral_1h_input_tokens);
  const input = Math.max(0, count(usage.prompt_tokens) - cacheRead - cacheWrite5m - cacheWrite1h);
  return {
    input,
    output: count(usage.completion_tokens),
    cacheRead,
    cacheWrite5m,
    cacheWrite1h,
    searches: count(searches),
  };
}

/** The bill when no usage arrived: the input estimate, and the output estimated from what was produced (proxy/stream/usage-watch.ts). */
export function billedFromEstimate(inputTokens: number, outputTokens: number, searches: number): BilledUsage {
  return {
    input: inputTokens,
    output: outputTokens,
    cacheRead: 0,
    cacheWrite5m: 0,
    cacheWrite1h: 0,
    searches: count(searches),
  };
}

/** A token count as the upstream sent it, or 0 when it is missing or not a whole number ≥ 0. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}
