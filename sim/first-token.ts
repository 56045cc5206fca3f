// When the first byte of an answer leaves: the TTFT, plus the prefill of the prompt tokens the prompt cache did
// not hold, at `prefillUsPerToken` µs each. A prompt found cached in full costs the TTFT alone, as on a server
// whose prefix cache skips the prefill of what it holds.

export interface FirstTokenCost {
  /** The fixed part, ms. */
  ttftMs: number;
  /** The prefill of one uncached prompt token, µs. */
  prefillUsPerToken: number;
}

/** The delay before the first byte, ms: ttftMs + (promptTokens − cachedTokens) × prefillUsPerToken / 1000. */
export function firstTokenMs(cost: FirstTokenCost, promptTokens: number, cachedTokens: number): number {
  const uncached = Math.max(0, promptTokens - cachedTokens);
  return cost.ttftMs + (uncached * cost.prefillUsPerToken) / 1000;
}
