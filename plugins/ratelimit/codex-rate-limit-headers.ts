// Codex's own limit signal on the responses dialect: the `x-codex-*` headers, fed from the organization's
// rate-limit window (the fullest of its three counters, window-use.ts) and its balance, beside the spec's
// `svc-ratelimit-*`. What Codex (codex-rs/codex-api/src/rate_limits.rs, `parse_rate_limit_for_limit` and
// `parse_credits_snapshot`) reads:
// - `x-codex-primary-used-percent` (an f64), `-primary-window-minutes` and `-primary-reset-at` (i64,
//   Unix seconds); a window with 0 used, no minutes and no reset is dropped, so the reset is always sent;
// - `x-codex-credits-has-credits` and `-unlimited` (`true`/`false`; both needed for a snapshot) and
//   `-balance` (a string its status line rounds to whole credits: "Credits: 12 credits"). The balance is
//   in credits, the store's integer micro-credits / 1,000,000 written exactly (store/credits.ts).
// There is one window here, so no `secondary`.
import { formatCredits } from '../../store/credits.js';
import type { WindowUse } from './window-use.js';

/** A percentage with at most two decimals, 100 once the limit is reached. */
function percent(utilization: number): string {
  return String(Math.round(Math.min(1, utilization) * 10_000) / 100);
}

/**
 * Sets the headers from the window's use (`rejected`: the organization's 429, shown as 100% used) and
 * the balance in micro-credits, when known (undefined leaves the credits headers out).
 */
export function writeCodexRateLimitHeaders(
  headers: Record<string, string>,
  use: WindowUse,
  windowMs: number,
  rejected: boolean,
  balanceMicros: number | undefined,
): void {
  headers['x-codex-primary-used-percent'] = rejected ? '100' : percent(use.utilization);
  headers['x-codex-primary-window-minutes'] = String(Math.max(1, Math.round(windowMs / 60_000)));
  headers['x-codex-primary-reset-at'] = String(Math.ceil(use.resetAt / 1000));
  if (balanceMicros === undefined) return;
  headers['x-codex-credits-has-credits'] = String(balanceMicros > 0);
  headers['x-codex-credits-unlimited'] = 'false';
  headers['x-codex-credits-balance'] = formatCredits(Math.max(0, balanceMicros));
}
