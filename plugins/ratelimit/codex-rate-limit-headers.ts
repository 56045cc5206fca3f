// Codex's own limit signal on the responses dialect: the `x-codex-*` headers, fed from the organization's
// rate-limit window (the fullest of its three counters, window-use.ts) and its balance, beside the spec's
// `svc-ratelimit-*`. What Codex (codex-rs/codex-api/src/rate_limits.rs, `parse_rate_limit_for_limit` and
// `parse_credits_snapshot`) reads:
// - `x-codex-primary-used-percent` (an f64), `-primary-window-minutes` and `-primary-reset-at` (i64,
//   Unix seconds); a window with 0 used, no minutes and no reset is dropped, so the reset is always sent;
// - `x-codex-credits-has-credits` and `-unlimited` (`true`/`false`; both needed for a snapshot) and
//   `-balance` (a string its status line rounds to whole credits: "Credits: 12 credits"). The balance is
//   in credits, the store's integer micro-credits / 1,000,000 written exactly (store/credits.ts).
// There is one window here, so no `secondary`. The same snapshot goes on the exchange, for the stream event
// Codex reads on a WebSocket, where no header reaches it (dialects/responses/codex-rate-limits.ts).
import type { LimitSnapshot } from '../../core/limit-snapshot.js';
import { formatCredits } from '../../store/credits.js';
import type { WindowUse } from './window-use.js';

/**
 * The window's use (`rejected`: the organization's 429, shown as 100% used) and the balance in micro-credits,
 * when known (undefined: no credits), as Codex shows them.
 */
export function codexLimitSnapshot(
  use: WindowUse,
  windowMs: number,
  rejected: boolean,
  balanceMicros: number | undefined,
): LimitSnapshot {
  return {
    usedPercent: rejected ? 100 : Math.round(Math.min(1, use.utilization) * 10_000) / 100,
    windowMinutes: Math.max(1, Math.round(windowMs / 60_000)),
    resetAt: Math.ceil(use.resetAt / 1000),
    limitReached: rejected,
    credits:
      balanceMicros === undefined
        ? undefined
        : { hasCredits: balanceMicros > 0, balance: formatCredits(Math.max(0, balanceMicros)) },
  };
}

/** Sets the `x-codex-*` headers from the snapshot. */
export function writeCodexRateLimitHeaders(headers: Record<string, string>, snapshot: LimitSnapshot): void {
  headers['x-codex-primary-used-percent'] = String(snapshot.usedPercent);
  headers['x-codex-primary-window-minutes'] = String(snapshot.windowMinutes);
  headers['x-codex-primary-reset-at'] = String(snapshot.resetAt);
  if (snapshot.credits === undefined) return;
  headers['x-codex-credits-has-credits'] = String(snapshot.credits.hasCredits);
  headers['x-codex-credits-unlimited'] = 'false';
  headers['x-codex-credits-balance'] = snapshot.credits.balance;
}
