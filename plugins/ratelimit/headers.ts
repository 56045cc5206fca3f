// The rate-limit response headers (spec §8.2): limit, remaining and reset (ISO 8601) for each of the
// three counters, under a configurable prefix (`limits.header_prefix`, `svc-` by default); on 429,
// `retry-after` (whole seconds, the spec's) and `retry-after-ms` (what the SDKs read first, docs/wire.md).
import type { Tier } from '../../limits/tiers.js';
import type { Count, CounterKind } from './window.js';

const SEGMENTS: Readonly<Record<CounterKind, string>> = {
  requests: 'requests',
  input: 'input-tokens',
  output: 'output-tokens',
};

export type Counts = Record<CounterKind, Count>;

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

/** The header names, made once per prefix. */
export class RateLimitHeaders {
  readonly #names: ReadonlyArray<{ kind: CounterKind; limit: string; remaining: string; reset: string }>;

  constructor(prefix: string) {
    this.#names = (Object.keys(SEGMENTS) as CounterKind[]).map((kind) => {
      const base = `${prefix}ratelimit-${SEGMENTS[kind]}`;
      return { kind, limit: `${base}-limit`, remaining: `${base}-remaining`, reset: `${base}-reset` };
    });
  }

  /** Sets the nine headers from the tier and the counters' state. */
  write(headers: Record<string, string>, tier: Tier, counts: Counts): void {
    for (const names of this.#names) {
      const limit = limitOf(tier, names.kind);
      const count = counts[names.kind];
      headers[names.limit] = String(limit);
      headers[names.remaining] = String(Math.max(0, limit - count.used));
      headers[names.reset] = new Date(count.resetAt).toISOString();
    }
  }
}

/** `retry-after` in whole seconds, rounded up and at least 1; `retry-after-ms` at least 1. */
export function writeRetryAfter(headers: Record<string, string>, waitMs: number): void {
  const ms = Math.max(1, Math.ceil(waitMs));
  headers['retry-after'] = String(Math.ceil(ms / 1000));
  headers['retry-after-ms'] = String(ms);
}
