// The one RateWindow implementation: a rate-limiter-flexible limiter per counter kind, used as an atomic
// counter with a TTL. Its `points` are unreachable, so the library never rejects: `consume` is INCRBY
// (in Redis, one Lua script that also starts the window) and the caller compares the returned total
// with the organization's tier, whose limits differ per organization. `penalty`/`reward` adjust, a consume of 0 reads.
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { Count, CounterKind, RateWindow } from './window.js';

/** Large enough never to be reached, so that consume() never rejects. */
export const UNREACHABLE_POINTS = Number.MAX_SAFE_INTEGER;

export type Limiters = Readonly<Record<CounterKind, RateLimiterAbstract>>;

export class LimiterWindow implements RateWindow {
  readonly windowMs: number;
  readonly #limiters: Limiters;

  constructor(limiters: Limiters, windowSeconds: number) {
    this.#limiters = limiters;
    this.windowMs = windowSeconds * 1000;
  }

  async consume(kind: CounterKind, orgId: string, amount: number): Promise<Count> {
    return this.#count(await this.#limiters[kind].consume(orgId, amount));
  }

  async adjust(kind: CounterKind, orgId: string, amount: number): Promise<Count> {
    const limiter = this.#limiters[kind];
    return this.#count(amount >= 0 ? await limiter.penalty(orgId, amount) : await limiter.reward(orgId, -amount));
  }

  /**
   * A read is a consume of nothing: in Redis one script call (where `get` is MULTI, GET, PTTL, EXEC:
   * four commands), measured in the bench as the larger part of the Redis backend's cost. It starts
   * the window when there is none, which only means all three counters of an org start together.
   */
  async read(kind: CounterKind, orgId: string): Promise<Count> {
    return this.#count(await this.#limiters[kind].consume(orgId, 0));
  }

  #count(res: RateLimiterRes | null): Count {
    const now = Date.now();
    // No key, or one that expired a moment ago: a fresh window would start now.
    if (res === null || res.msBeforeNext <= 0) return { used: 0, resetAt: now + this.windowMs };
    return { used: Math.max(0, res.consumedPoints), resetAt: now + res.msBeforeNext };
  }
}
