// Codex's in-stream limit signal: the `codex.rate_limits` event OpenAI sends first in a response, which Codex
// reads where no header reaches it (its WebSocket mode: the upgrade's headers are read once, not per
// response). The fields as codex-rs/codex-api/src/rate_limits.rs `parse_rate_limit_event` reads them:
// `rate_limits.primary` {used_percent (f64), window_minutes, reset_at (Unix s)}, `credits` {has_credits,
// unlimited, balance (a string)}; the same figures as the `x-codex-*` headers
// (plugins/ratelimit/codex-rate-limit-headers.ts). Only Codex is sent it: no other client knows the event.
import type { LimitSnapshot } from '../../core/limit-snapshot.js';

/** The event's data. */
export function codexRateLimitsEvent(limits: LimitSnapshot): string {
  return JSON.stringify({
    type: 'codex.rate_limits',
    rate_limits: {
      allowed: !limits.limitReached,
      limit_reached: limits.limitReached,
      primary: { used_percent: limits.usedPercent, window_minutes: limits.windowMinutes, reset_at: limits.resetAt },
      secondary: null,
    },
    credits:
      limits.credits === undefined
        ? null
        : { has_credits: limits.credits.hasCredits, unlimited: false, balance: limits.credits.balance },
  });
}
