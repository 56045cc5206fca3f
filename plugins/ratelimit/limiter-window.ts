// The one RateWindow implementation: a rate-limiter-flexible limiter per counter kind, used as an atomic
// counter with a TTL. Its `points` are unreachable, so the library never rejects: `consume` is INCRBY
// (in Redis, one Lua script that also starts the window) and the caller compares the returned total
// with the organization's tier, whose limits differ per organization. `penalty`/`reward` adjust, a consume of 0 reads.
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Count, CounterKind, RateWindow } from './window.js';

/** Large enough never to be reached, so that consume() never rejects. */
export const UNREACHABLE_POINTS = Number.MAX_SAFE_INTEGER;

/**
 * The most one operation adds or takes back: far above any tier's limit, and far enough below
 * UNREACHABLE_POINTS that no window of requests can add up to it (2^32 each: two million of them).
 */
export const MAX_STEP = 2 ** 32;

export type Limiters = Readonly<Record<CounterKind, RateLimiterAbstract>>;

export class LimiterWindow implements RateWindow {
  readonly windowMs: number;
  readonly #limiters: Limiters;

  constructor(limiters: Limiters, windowSeconds: number) {
    this.#limiters = limiters;
    this.windowMs = windowSeconds * 1000;
  }

  async consume(kind: CounterKind, orgId: string, amount: number): Promise<Count> {
    return this.#count(await settled(this.#limiters[kind].consume(orgId, step(amount))));
  }

  async adjust(kind: CounterKind, orgId: string, amount: number): Promise<Count> {
    const limiter = this.#limiters[kind];
    const bounded = step(amount);
    return this.#count(bounded >= 0 ? await limiter.penalty(orgId, bounded) : await limiter.reward(orgId, -bounded));
  }

  /**
   * A read is a consume of nothing: in Redis one script call (where `get` is MULTI, GET, PTTL, EXEC:
   * four commands), measured in the bench as the larger part of the Redis backend's cost. It starts
   * the window when there is none, which only means all three counters of an org start together.
   */
  async read(kind: CounterKind, orgId: string): Promise<Count> {
    return this.#count(await settled(this.#limiters[kind].consume(orgId, 0)));
  }

  #count(res: RateLimiterRes | null): Count {
    const now = Date.now();
    // No key, or one that expired a moment ago: a fresh window would start now.
    if (res === null || res.msBeforeNext <= 0) return { used: 0, resetAt: now + this.windowMs };
    return { used: Math.max(0, res.consumedPoints), resetAt: now + res.msBeforeNext };
  }
}

/** An amount as a whole number within ±MAX_STEP (NaN counts nothing): no figure can push a counter where it breaks. */
function step(amount: number): number {
  if (Number.isNaN(amount)) return 0;
  return Math.max(-MAX_STEP, Math.min(MAX_STEP, Math.round(amount)));
}

/**
 * The library rejects with the counter's state once it passes its points; that state is still the
 * answer (the caller compares it with the tier), never an error to give the client.
 */
async function settled(operation: Promise<RateLimiterRes>): Promise<RateLimiterRes> {
  try {
    return await operation;
  } catch (error) {
    if (error instanceof RateLimiterRes) return error;
    throw error;
  }
}
