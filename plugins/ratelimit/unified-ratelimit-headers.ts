// Claude Code's own limit signal on the messages dialect: the `anthropic-ratelimit-unified-*` headers,
// fed from the organization's rate-limit window (the fullest of its three counters, window-use.ts),
// beside the spec's `svc-ratelimit-*`. Claude Code 2.1.332 reads (its binary's header parser and the
// gateway protocol it documents):
// - `-status` `allowed` | `allowed_warning` | `rejected`, `-reset` (Unix seconds: Math.round(Number(v)));
// - `-representative-claim`: `overage`, the window-agnostic claim (`5h`/`7d` would make it do rolling
//   5-hour/7-day time math on a one-minute window);
// - `-overage-status`, `-overage-utilization` (a fraction, two decimals, below 1 while allowed),
//   `-overage-reset`, and `-overage-surpassed-threshold` (0.75 or 0.95: what triggers its notice).
// On the 429 of the organization's limit: `rejected` with the reset, without the claim and
// overage-status (with them the client writes its own "You've hit your limit" line and drops the
// gateway's message), and without a disabled reason (that would stop its retries; the window reopens
// within a minute, at `-reset`, which its retry loop waits for).
import type { WindowUse } from './window-use.js';

const PREFIX = 'anthropic-ratelimit-unified-';

/** The utilizations past which the status is `allowed_warning`, highest first: Claude Code's notice levels. */
export const WARNING_THRESHOLDS: readonly number[] = [0.95, 0.75];

/**
 * A fraction in two decimals, rounded down (0.999 is 0.99, not 1: 1 means the limit is reached); the
 * epsilon keeps a binary fraction like 0.29 (28.999… hundredths) at 0.29.
 */
function twoDecimals(fraction: number): string {
  return String(Math.floor(fraction * 100 + 1e-9) / 100);
}

/** Sets the family for a served request (`rejected` false) or the organization's 429 (`rejected` true). */
export function writeUnifiedRateLimitHeaders(headers: Record<string, string>, use: WindowUse, rejected: boolean): void {
  const reset = String(Math.ceil(use.resetAt / 1000));
  headers[`${PREFIX}reset`] = reset;
  headers[`${PREFIX}overage-reset`] = reset;
  if (rejected) {
    headers[`${PREFIX}status`] = 'rejected';
    headers[`${PREFIX}overage-utilization`] = '1';
    delete headers[`${PREFIX}representative-claim`];
    delete headers[`${PREFIX}overage-status`];
    delete headers[`${PREFIX}overage-surpassed-threshold`];
    return;
  }
  // A served request may itself take a counter to its limit (output tokens are counted after it): it
  // was still allowed, so the figure stays below 1.
  const utilization = Math.min(0.99, use.utilization);
  const surpassed = WARNING_THRESHOLDS.find((threshold) => utilization >= threshold);
  const status = surpassed === undefined ? 'allowed' : 'allowed_warning';
  headers[`${PREFIX}status`] = status;
  headers[`${PREFIX}representative-claim`] = 'overage';
  headers[`${PREFIX}overage-status`] = status;
  headers[`${PREFIX}overage-utilization`] = twoDecimals(utilization);
  if (surpassed === undefined) delete headers[`${PREFIX}overage-surpassed-threshold`];
  else headers[`${PREFIX}overage-surpassed-threshold`] = String(surpassed);
}
