// The rate-limit response headers (spec §8.2): limit, remaining and reset (ISO 8601) for each of the
// three counters, under a configurable prefix (`limits.header_prefix`, `svc-` by default); on 429,
// `retry-after` (whole seconds, the spec's) and `retry-after-ms` (what the SDKs read first, docs/wire.md).
import type { Tier } from '../../limits/tiers.js';
import { ResetTimes } from './reset-times.js';
import type { Count, CounterKind, Counts } from './window.js';

const SEGMENTS: Readonly<Record<CounterKind, string>> = {
  requests: 'requests',
  input: 'input-tokens',
  output: 'output-tokens',
};

export function limitOf(tier: Tier, kind: CounterKind): number {
  switch (kind) {
    case 'requests':
      return tier.requestsPerMinute;
    case 'input':
      return tier.inputTokensPerMinute;
    case 'output':
      return tier.outputTokensPerMinute;
    default:
      return kind satisfies never;
  }
}

interface Names {
  limit: string;
  remaining: string;
  reset: string;
}

/** The header names, made once per prefix. */
export class RateLimitHeaders {
  readonly #names: Readonly<Record<CounterKind, Names>>;
  readonly #resetTimes = new ResetTimes();

  constructor(prefix: string) {
    const names = (kind: CounterKind): Names => {
      const base = `${prefix}ratelimit-${SEGMENTS[kind]}`;
      return { limit: `${base}-limit`, remaining: `${base}-remaining`, reset: `${base}-reset` };
    };
    this.#names = { requests: names('requests'), input: names('input'), output: names('output') };
  }

  /** Sets the nine headers from the tier and the counters' state. */
  write(headers: Record<string, string>, tier: Tier, counts: Counts): void {
    this.writeCounter(headers, tier, 'requests', counts.requests);
    this.writeCounter(headers, tier, 'input', counts.input);
    this.writeCounter(headers, tier, 'output', counts.output);
  }

  /** Sets one counter's three headers (after an operation that changed that counter only). */
  writeCounter(headers: Record<string, string>, tier: Tier, kind: CounterKind, count: Count): void {
    const names = this.#names[kind];
    const limit = limitOf(tier, kind);
    headers[names.limit] = String(limit);
    headers[names.remaining] = String(Math.max(0, limit - count.used));
    headers[names.reset] = this.#resetTimes.iso(count.resetAt);
  }
}
