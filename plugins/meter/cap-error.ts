// The 429 of a spend or concurrency cap (cap-admission.ts): which cap of whom, what is used, and when
// it resets; `retry-after` to the period's end (a spend cap) or one second (a concurrency cap frees as
// requests end). The rate-limit headers of the answer keep describing the organization's tier.
import { GatewayError } from '../../core/errors.js';
import { writeRetryAfter } from '../../core/retry-after.js';
import { describeScope } from '../../store/cap-rules.js';
import { formatCredits } from '../../store/credits.js';
import type { CapRefusal } from './cap-admission.js';

const PERIODS = { dayMicros: 'day', weekMicros: 'week', monthMicros: 'month' } as const;

/** The cap's error, with its retry headers written into `headers`. */
export function capError(refusal: CapRefusal, headers: Record<string, string>, now: number): GatewayError {
  const whose = describeScope(refusal.scope);
  if (refusal.cap === 'concurrentRequests') {
    writeRetryAfter(headers, 1000);
    return new GatewayError(
      'GW_ERR_RATE_LIMIT_CONCURRENCY',
      `Concurrency cap reached: ${whose} may have ${refusal.limit} requests in flight (concurrent_requests) and has ${refusal.used}; retry when one ends.`,
    );
  }
  const resetAt = refusal.resetAt ?? now;
  writeRetryAfter(headers, resetAt - now);
  const period = PERIODS[refusal.cap];
  return new GatewayError(
    'GW_ERR_RATE_LIMIT_SPEND_CAP',
    `Spend cap reached: ${whose} may spend ${formatCredits(refusal.limit)} credits a ${period} (${period}_micros ${refusal.limit}); ${formatCredits(refusal.used)} are used or held and this request reserves up to ${formatCredits(refusal.needed)} (lower max_tokens to reserve less). The cap resets at ${new Date(resetAt).toISOString()}.`,
  );
}
