// The organization's limit window and balance as the clients that show them read them (Codex's status line):
// the rate limiter sets it on the exchange, and a dialect whose clients take it inside the stream writes it
// there (Codex's `codex.rate_limits` event on the responses dialect, dialects/responses/codex-rate-limits.ts).

export interface LimitSnapshot {
  /** The fullest counter's use against the tier, in percent with at most two decimals; 100 on the organization's 429. */
  readonly usedPercent: number;
  /** The window's length in whole minutes, at least 1. */
  readonly windowMinutes: number;
  /** When the fullest counter's window resets (Unix seconds). */
  readonly resetAt: number;
  /** The organization's 429: the limit is reached. */
  readonly limitReached: boolean;
  /** The balance in credits (integer micro-credits / 1,000,000, written exactly; 0 below zero), when known. */
  readonly credits: { readonly hasCredits: boolean; readonly balance: string } | undefined;
}
