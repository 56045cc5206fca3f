// What the store said about each presented key, kept per raw key for `ttlMs`, so that a request costs
// neither a store read nor the key's SHA-256: only a miss hashes and asks. The raw key is held no longer
// than its answer: an announced revocation drops the key's entries at once, a sweep drops expired
// entries (every `ttlMs`, at least every second), and the map is bounded.
import { hashApiKey, isWellFormedApiKey } from '../../store/api-key.js';
import type { ApiKeyRecord } from '../../store/keys.js';
import type { RequestTrace } from '../../telemetry/request-trace.js';

/** Cached keys at most; beyond, the cache starts over (a burst of unknown keys). */
const MAX_ENTRIES = 10_000;

/** The store's answer for a key's SHA-256: its record, or undefined if there is none (a span of `trace`, if given). */
export type FindByHash<R extends ApiKeyRecord> = (hash: string, trace?: RequestTrace) => Promise<R | undefined>;

export class KeyCache<R extends ApiKeyRecord = ApiKeyRecord> {
  readonly #entries = new Map<string, { record: R | undefined; until: number }>();
  readonly #find: FindByHash<R>;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout | undefined;
  /** Counts announced revocations: a lookup that one overtook is not cached. */
  #revocations = 0;

  constructor(find: FindByHash<R>, ttlMs: number, now: () => number) {
    this.#find = find;
    this.#ttlMs = ttlMs;
    this.#now = now;
    if (ttlMs > 0) {
      this.#sweeper = setInterval(() => this.sweep(), Math.max(ttlMs, 1000));
      this.#sweeper.unref();
    }
  }

  /** The key's record, or undefined for a key that is malformed or unknown; a miss asks the store under `trace`. */
  async lookup(key: string, trace?: RequestTrace): Promise<R | undefined> {
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit !== undefined && hit.until > now) return hit.record;
    // Only well-formed keys are looked up, or cached: what is in the cache is well-formed.
    if (!isWellFormedApiKey(key)) return undefined;
    const revocations = this.#revocations;
    const record = await this.#find(hashApiKey(key), trace);
    if (this.#ttlMs > 0 && revocations === this.#revocations) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(key, { record, until: now + this.#ttlMs });
    }
    return record;
  }

  /** An announced revocation (or change of the key's caps): the key's entries go now, not when they expire. */
  revoke(keyId: string): void {
    this.#revocations++;
    for (const [key, entry] of this.#entries) if (entry.record?.id === keyId) this.#entries.delete(key);
  }

  /** How many keys are held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops the expired entries, raw keys with them: the cache's own timer calls it. */
  sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.until <= now) this.#entries.delete(key);
  }

  close(): void {
    clearInterval(this.#sweeper);
    this.#entries.clear();
  }
}
