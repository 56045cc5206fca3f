// Which prompt prefixes an organization has in the (gateway-side) prompt cache: prefix hash →
// {tokens, ttl, expiresAt}. In this process by default; in Redis (redis-registry.ts) when the
// gateway has one, so that every node sees the same cache.
import type { CacheTtl } from './prefixes.js';

export interface PrefixEntry {
  tokens: number;
  ttl: CacheTtl;
  /** Unix milliseconds. */
  expiresAt: number;
}

export interface PrefixRegistry {
  /** The entries of these hashes that are still alive. */
  lookup(orgId: string, hashes: readonly string[]): Promise<Map<string, PrefixEntry>>;
  /** Writes (or refreshes) entries; those already expired are skipped. */
  register(orgId: string, entries: ReadonlyArray<PrefixEntry & { hash: string }>): Promise<void>;
}

/** This process alone. Expired entries go when looked up or when the map is full; past `maxEntries`, the least recently written. */
export class MemoryRegistry implements PrefixRegistry {
  readonly #entries = new Map<string, PrefixEntry>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  async lookup(orgId: string, hashes: readonly string[]): Promise<Map<string, PrefixEntry>> {
    const now = this.#now();
    const found = new Map<string, PrefixEntry>();
    for (const hash of hashes) {
      const key = `${orgId}:${hash}`;
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      if (entry.expiresAt > now) found.set(hash, entry);
      else this.#entries.delete(key);
    }
    return found;
  }

  async register(orgId: string, entries: ReadonlyArray<PrefixEntry & { hash: string }>): Promise<void> {
    const now = this.#now();
    for (const { hash, tokens, ttl, expiresAt } of entries) {
      if (expiresAt <= now) continue;
      const key = `${orgId}:${hash}`;
      this.#entries.delete(key);
      this.#entries.set(key, { tokens, ttl, expiresAt });
    }
    if (this.#entries.size > this.#maxEntries) this.#evict(now);
  }

  get size(): number {
    return this.#entries.size;
  }

  #evict(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(key);
    }
  }
}
