// Each organization's tier, from its lifetime spend (spec §8.1), cached per node for a short time so that
// a request costs no store read; as spend grows, the tier moves up within that time by itself. The same
// read gives the balance the clients' own limit signals show (Codex's credits), as of that read.
import { tierFor, type Tier } from '../../limits/tiers.js';

/** What one store read tells of an organization, in micro-credits. */
export interface Standing {
  spentMicros: number;
  balanceMicros: number;
}

/** The organization's spend and balance, or undefined if there is no such organization. */
export type SpendLookup = (orgId: string) => Promise<Standing | undefined>;

/** Cached organizations at most; beyond, the cache starts over (a burst of new organizations). */
const MAX_ENTRIES = 10_000;

interface Entry {
  tier: Promise<Tier>;
  /** The tier once the lookup has answered: what most requests take, without an await. */
  known: Tier | undefined;
  /** The balance the lookup read (undefined until it answered, or for no such organization). */
  balanceMicros: number | undefined;
  until: number;
}

export class TierCache {
  readonly #entries = new Map<string, Entry>();
  readonly #lookup: SpendLookup;
  readonly #tiers: readonly Tier[];
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(lookup: SpendLookup, tiers: readonly Tier[], ttlMs: number, now: () => number = Date.now) {
    this.#lookup = lookup;
    this.#tiers = tiers;
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The organization's tier if this node knows it now, else undefined (then ask `tierOf`). */
  known(orgId: string): Tier | undefined {
    const hit = this.#entries.get(orgId);
    return hit !== undefined && hit.until > this.#now() ? hit.known : undefined;
  }

  /** The organization's balance as the cached lookup read it (at most the cache's lifetime old), if known. */
  balanceOf(orgId: string): number | undefined {
    return this.#entries.get(orgId)?.balanceMicros;
  }

  /** The organization's tier; concurrent requests of one organization share one lookup. */
  tierOf(orgId: string): Promise<Tier> {
    const now = this.#now();
    const hit = this.#entries.get(orgId);
    if (hit !== undefined && hit.until > now) return hit.tier;
    const tier = this.#lookup(orgId).then((standing) => {
      entry.balanceMicros = standing?.balanceMicros;
      return tierFor(standing?.spentMicros ?? 0, this.#tiers);
    });
    const entry: Entry = { tier, known: undefined, balanceMicros: undefined, until: now + this.#ttlMs };
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(orgId, entry);
    tier.then(
      (known) => {
        entry.known = known;
      },
      // A failed lookup is not cached: the next request tries again.
      () => {
        if (this.#entries.get(orgId) === entry) this.#entries.delete(orgId);
      },
    );
    return tier;
  }
}
