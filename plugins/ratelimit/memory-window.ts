// The in-process backend: each gateway process counts alone (one node, or tests). With several nodes
// behind a balancer, each admits the full limit, so together they admit N times it: use Redis there.
// It is also what a node counts with while Redis is unreachable (redis-window.ts).
import { boundedAmount, type Count, type Counts, type InputCharge, type RateWindow, type Settled } from './window.js';

/** One counter: what its window has used, and when the window ends (0: no window yet). */
interface Counter {
  used: number;
  resetAt: number;
}

type OrgCounters = Record<keyof Counts, Counter>;

export class MemoryWindow implements RateWindow {
  readonly windowMs: number;
  readonly #orgs = new Map<string, OrgCounters>();
  readonly #now: () => number;
  /** When the organizations whose windows have all ended are next dropped. */
  #sweepAt = 0;

  constructor(windowSeconds: number, now: () => number = Date.now) {
    this.windowMs = windowSeconds * 1000;
    this.#now = now;
  }

  async open(orgId: string, requests: number): Promise<Counts> {
    const now = this.#now();
    const org = this.#org(orgId, now);
    return {
      requests: countOf(this.#add(org.requests, requests, now)),
      input: countOf(this.#add(org.input, 0, now)),
      output: countOf(this.#add(org.output, 0, now)),
    };
  }

  async chargeInput(orgId: string, estimate: number, limit: number): Promise<InputCharge> {
    const now = this.#now();
    const amount = boundedAmount(estimate);
    const counter = this.#add(this.#org(orgId, now).input, amount, now);
    if (counter.used <= limit) return { admitted: true, input: countOf(counter) };
    counter.used -= amount;
    return { admitted: false, input: countOf(counter) };
  }

  async settle(orgId: string, input: number | undefined, output: number | undefined): Promise<Settled> {
    const now = this.#now();
    const org = this.#org(orgId, now);
    const settled: Settled = {};
    if (input !== undefined) settled.input = countOf(this.#add(org.input, input, now));
    if (output !== undefined) settled.output = countOf(this.#add(org.output, output, now));
    return settled;
  }

  /** Adds to a counter, starting a new window first if its own has ended; returns the counter. */
  #add(counter: Counter, amount: number, now: number): Counter {
    if (counter.resetAt <= now) {
      counter.used = 0;
      counter.resetAt = now + this.windowMs;
    }
    counter.used += boundedAmount(amount);
    return counter;
  }

  #org(orgId: string, now: number): OrgCounters {
    if (now >= this.#sweepAt) this.#sweep(now);
    let org = this.#orgs.get(orgId);
    if (org === undefined) {
      org = { requests: { used: 0, resetAt: 0 }, input: { used: 0, resetAt: 0 }, output: { used: 0, resetAt: 0 } };
      this.#orgs.set(orgId, org);
    }
    return org;
  }

  /** Once a window: forgets the organizations that have not called in the last one. */
  #sweep(now: number): void {
    for (const [orgId, org] of this.#orgs) {
      if (org.requests.resetAt <= now && org.input.resetAt <= now && org.output.resetAt <= now)
        this.#orgs.delete(orgId);
    }
    this.#sweepAt = now + this.windowMs;
  }
}

/** What a caller may keep: a copy, never the live counter; `used` is never reported below zero. */
function countOf(counter: Counter): Count {
  return { used: Math.max(0, counter.used), resetAt: counter.resetAt };
}
