// The prompt-cache registry in Redis, shared by the gateway nodes: one key per organization and
// prefix, `<prefix>promptcache:{<org>}:<hash>` → `{"tokens","ttl","expiresAt"}`, expiring with it (PX).
// The org id in braces is a Redis Cluster hash tag: an organization's prefixes share one slot, so the
// one MGET of a lookup goes to one master (keys of several slots in one MGET are a CROSSSLOT error).
import type { RedisClient } from '../../store/redis-client.js';
import type { PrefixEntry, PrefixRegistry } from './registry.js';

export class RedisRegistry implements PrefixRegistry {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(redis: RedisClient, keyPrefix: string, now: () => number = Date.now) {
    this.#redis = redis;
    this.#prefix = `${keyPrefix}promptcache:`;
    this.#now = now;
  }

  async lookup(orgId: string, hashes: readonly string[]): Promise<Map<string, PrefixEntry>> {
    const found = new Map<string, PrefixEntry>();
    if (hashes.length === 0) return found;
    const values = await this.#redis.mget(hashes.map((hash) => this.#key(orgId, hash)));
    const now = this.#now();
    values.forEach((value, i) => {
      const entry = value === null ? undefined : parseEntry(value);
      if (entry !== undefined && entry.expiresAt > now) found.set(hashes[i]!, entry);
    });
    return found;
  }

  async register(orgId: string, entries: ReadonlyArray<PrefixEntry & { hash: string }>): Promise<void> {
    const now = this.#now();
    const writes = entries
      .filter((entry) => entry.expiresAt > now)
      .map(({ hash, tokens, ttl, expiresAt }) =>
        this.#redis.set(this.#key(orgId, hash), JSON.stringify({ tokens, ttl, expiresAt }), 'PX', expiresAt - now),
      );
    await Promise.all(writes);
  }

  #key(orgId: string, hash: string): string {
    return `${this.#prefix}{${orgId}}:${hash}`;
  }
}

function parseEntry(value: string): PrefixEntry | undefined {
  try {
    const entry = JSON.parse(value) as Partial<PrefixEntry>;
    if (
      typeof entry.tokens !== 'number' ||
      typeof entry.expiresAt !== 'number' ||
      (entry.ttl !== '5m' && entry.ttl !== '1h')
    )
      return undefined;
    return { tokens: entry.tokens, ttl: entry.ttl, expiresAt: entry.expiresAt };
  } catch {
    return undefined;
  }
}
