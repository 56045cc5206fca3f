// The 429 answers (spec §7, §8): which limit was hit, the tier, and when to retry, in the message; the
// dialects render GW_ERR_RATE_LIMIT_* in their shapes (chat: insufficient_quota; messages: rate_limit_error).
import type { Tier } from '../../limits/tiers.js';
import { GatewayError, type ErrorCode } from '../../core/errors.js';
import { limitOf } from './headers.js';
import type { CounterKind } from './window.js';

/** The error code of each counter's 429 (the tier's, and a key's or member's cap). */
export const LIMIT_CODES: Readonly<Record<CounterKind, ErrorCode>> = {
  requests: 'GW_ERR_RATE_LIMIT_REQUESTS',
  input: 'GW_ERR_RATE_LIMIT_INPUT_TOKENS',
  output: 'GW_ERR_RATE_LIMIT_OUTPUT_TOKENS',
};

/** Each counter as a message names it. */
export const LIMIT_NAMES: Readonly<Record<CounterKind, string>> = {
  requests: 'requests',
  input: 'input tokens',
  output: 'output tokens',
};

export interface LimitHit {
  kind: CounterKind;
  tier: Tier;
  windowMs: number;
  /** Until the counter's window resets. */
  retryMs: number;
  /** What this window has used (output), or what this request needs (input). */
  detail?: string;
}

/** e.g. "Rate limit reached for requests per minute (limit 1000, tier Start); retry after 12 s." */
export function limitError(hit: LimitHit): GatewayError {
  const per = hit.windowMs === 60_000 ? 'minute' : `${hit.windowMs / 1000} s`;
  const detail = hit.detail === undefined ? '' : `: ${hit.detail}`;
  const retry = `retry after ${Math.max(1, Math.ceil(hit.retryMs / 1000))} s`;
  return new GatewayError(
    LIMIT_CODES[hit.kind],
    `Rate limit reached for ${LIMIT_NAMES[hit.kind]} per ${per} (limit ${limitOf(hit.tier, hit.kind)}, tier ${hit.tier.name})${detail}; ${retry}.`,
  );
}

/** An input estimate larger than the limit itself: waiting does not help. */
export function inputTooLargeError(tier: Tier, windowMs: number, estimate: number): GatewayError {
  const per = windowMs === 60_000 ? 'minute' : `${windowMs / 1000} s`;
  return new GatewayError(
    'GW_ERR_RATE_LIMIT_INPUT_TOKENS',
    `Rate limit reached for input tokens per ${per} (limit ${tier.inputTokensPerMinute}, tier ${tier.name}): this request's estimated ${estimate} input tokens exceed the limit itself; shorten the prompt or reach a higher tier.`,
  );
}
