// llama-server's `timings` (server_slot_stats::to_json in tools/server/server-common.cpp): on the last
// chunk of a stream and on a non-streamed body always, on every chunk with `timings_per_token: true`.
// cache_n is the prompt tokens reused from the slot, prompt_n those computed, predicted_n the tokens
// generated so far: the running usage a client can read in the middle of a stream. The sim's times are
// its TTFT (the prompt) and one ITL per generated token after the first.
import type { UsageOverride } from './usage.js';

export interface LlamaTimings {
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  prompt_per_token_ms: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_token_ms: number;
  predicted_per_second: number;
}

export interface TimingsInput {
  promptTokens: number;
  cachedTokens: number;
  /** Tokens generated so far. */
  generated: number;
  ttftMs: number;
  itlMs: number;
  /** `x-sim-usage`: its figures replace the counted ones here too. */
  override?: UsageOverride;
}

export function llamaTimings(input: TimingsInput): LlamaTimings {
  const cached = input.override?.cached ?? input.cachedTokens;
  const promptN = (input.override?.prompt ?? input.promptTokens) - cached;
  const predictedN = input.override?.completion ?? input.generated;
  const promptMs = input.ttftMs;
  // The first token comes from the prompt's last batch; each later one is a decode step.
  const steps = Math.max(0, input.generated - 1);
  // llama-server counts at least 1 µs of generation once a token is out.
  const predictedMs = input.generated > 0 ? Math.max(0.001, steps * input.itlMs) : 0;
  return {
    cache_n: cached,
    prompt_n: promptN,
    prompt_ms: promptMs,
    prompt_per_token_ms: promptN > 0 ? promptMs / promptN : 0,
    prompt_per_second: promptMs > 0 ? (1e3 / promptMs) * promptN : 0,
    predicted_n: predictedN,
    predicted_ms: predictedMs,
    predicted_per_token_ms: steps > 0 ? predictedMs / steps : 0,
    predicted_per_second: predictedMs > 0 ? (1e3 / predictedMs) * steps : 0,
  };
}
