// Each organization's tier, from its lifetime spend (spec §8.1), cached per node for a short time so that
// a request costs no store read; as spend grows, the tier moves up within that time by itself.
import { tierFor, type Tier } from '../../limits/tiers.js';

/** The organization's lifetime spend in micro-credits, or undefined if there is no such organization. */
export type SpendLookup = (orgId: string) => Promise<number | undefined>;

/** Cached organizations at most; beyond, the cache starts over (a burst of new organizations). */
const MAX_ENTRIES = 10_000;

export class TierCache {
  readonly #entries = new Map<string, { tier: Promise<Tier>; until: number }>();
  readonly #lookup: SpendLookup;
  readonly #tiers: readonly Tier[];
  readonly #ttlMs: number;

  constructor(lookup: SpendLookup, tiers: readonly Tier[], ttlMs: number) {
    this.#lookup = lookup;
    this.#tiers = tiers;
    this.#ttlMs = ttlMs;
  }

  /** The organization's tier; concurrent requests of one organization share one lookup. */
  tierOf(orgId: string): Promise<Tier> {
    const now = Date.now();
    const hit = this.#entries.get(orgId);
    if (hit !== undefined && hit.until > now) return hit.tier;
    const tier = this.#lookup(orgId).then((spentMicros) => tierFor(spentMicros ?? 0, this.#tiers));
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(orgId, { tier, until: now + this.#ttlMs });
    // A failed lookup is not cached: the next request tries again.
    tier.catch(() => {
      if (this.#entries.get(orgId)?.tier === tier) this.#entries.delete(orgId);
    });
    return tier;
  }
}
