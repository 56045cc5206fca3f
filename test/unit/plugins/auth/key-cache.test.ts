// The auth cache: per raw key, a request within cache_ttl_ms costs neither a store read nor a hash; an
// announced revocation takes the key out at once; the raw key goes when its answer expires.
import t from 'tap';
import { KeyCache } from '../../../../plugins/auth/key-cache.js';
import { generateApiKey, hashApiKey } from '../../../../store/api-key.js';
import type { ApiKeyRecord } from '../../../../store/keys.js';
import { TestClock } from '../../../helpers/clock.js';

const TTL_MS = 2000;

/** A store with one active key, counting its lookups. */
function storeWithKey(): {
  key: string;
  record: ApiKeyRecord;
  finds: string[];
  find: (hash: string) => Promise<ApiKeyRecord | undefined>;
} {
  const { key, hash, last4 } = generateApiKey();
  const record: ApiKeyRecord = {
    id: 'key_1',
    orgId: 'org_1',
    name: 'tests',
    last4,
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
    status: 'active',
    createdBy: 'system',
  };
  const finds: string[] = [];
  const find = async (asked: string): Promise<ApiKeyRecord | undefined> => {
    finds.push(asked);
    return asked === hash ? record : undefined;
  };
  return { key, record, finds, find };
}

t.test('a key is hashed and looked up once per cache_ttl_ms, by its SHA-256', async (t) => {
  const clock = new TestClock();
  const { key, record, finds, find } = storeWithKey();
  const cache = new KeyCache(find, TTL_MS, clock.now);
  t.teardown(() => cache.close());
  for (let i = 0; i < 5; i++) t.equal(await cache.lookup(key), record);
  t.same(finds, [hashApiKey(key)], 'one lookup, by the hash');
  clock.advance(TTL_MS - 1);
  await cache.lookup(key);
  t.equal(finds.length, 1, 'still trusted until cache_ttl_ms');
  clock.advance(1);
  await cache.lookup(key);
  t.equal(finds.length, 2, 'then asked again');
});

t.test('an unknown key is cached as unknown; a malformed one is never looked up or kept', async (t) => {
  const clock = new TestClock();
  const { finds, find } = storeWithKey();
  const cache = new KeyCache(find, TTL_MS, clock.now);
  t.teardown(() => cache.close());
  const unknown = generateApiKey().key;
  t.equal(await cache.lookup(unknown), undefined);
  t.equal(await cache.lookup(unknown), undefined);
  t.equal(finds.length, 1);
  t.equal(await cache.lookup('sk-svc-short'), undefined);
  t.equal(finds.length, 1, 'not asked');
  t.equal(cache.size, 1, 'not kept');
});

t.test('an announced revocation takes the key out of the cache at once', async (t) => {
  const clock = new TestClock();
  const { key, record, finds, find } = storeWithKey();
  const cache = new KeyCache(find, TTL_MS, clock.now);
  t.teardown(() => cache.close());
  await cache.lookup(key);
  cache.revoke(record.id);
  t.equal(cache.size, 0);
  await cache.lookup(key);
  t.equal(finds.length, 2, 'the next request asks the store');
});

t.test('regression: a lookup under way when a revocation is announced is not cached', async (t) => {
  const clock = new TestClock();
  const { key, record, find } = storeWithKey();
  let revokeDuringLookup = (): void => {};
  const cache = new KeyCache(
    async (hash) => {
      const answer = await find(hash);
      revokeDuringLookup();
      return answer;
    },
    TTL_MS,
    clock.now,
  );
  t.teardown(() => cache.close());
  revokeDuringLookup = () => cache.revoke(record.id);
  await cache.lookup(key);
  t.equal(cache.size, 0, 'the answer the store gave before the revocation is not kept');
});

t.test('the raw key is kept no longer than its answer: expired entries are swept', async (t) => {
  const clock = new TestClock();
  const { key, find } = storeWithKey();
  const cache = new KeyCache(find, TTL_MS, clock.now);
  t.teardown(() => cache.close());
  await cache.lookup(key);
  clock.advance(TTL_MS - 1);
  cache.sweep();
  t.equal(cache.size, 1, 'a live entry stays');
  clock.advance(1);
  cache.sweep();
  t.equal(cache.size, 0, 'an expired one goes, raw key and all');
});

t.test('with cache_ttl_ms 0 nothing is cached', async (t) => {
  const { key, finds, find } = storeWithKey();
  const cache = new KeyCache(find, 0, Date.now);
  t.teardown(() => cache.close());
  await cache.lookup(key);
  await cache.lookup(key);
  t.equal(finds.length, 2);
  t.equal(cache.size, 0);
});
