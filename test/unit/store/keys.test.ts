import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t, { type Test } from 'tap';
import { API_KEY_PREFIX, hashApiKey, isWellFormedApiKey } from '../../../store/api-key.js';
import type { CreatedApiKey } from '../../../store/keys.js';
import { openStore, type Store, type StoreOptions } from '../../../store/store.js';
import { heldOpen } from '../../helpers/held-open.js';
import { freshStoreOptions, testDialect } from '../../helpers/test-store.js';

/** What only the SQLite file can show (its bytes on disk, a second reader of the file). */
const sqliteOnly = { skip: testDialect === 'sqlite' ? false : 'reads the SQLite file' };

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gateway-store-'));
}

async function storeWithOrg(t: Test, options: Partial<StoreOptions> = {}): Promise<Store> {
  const store = await openStore({ ...(await freshStoreOptions()), ...options });
  t.teardown(() => store.close());
  await store.orgs.create('acme');
  return store;
}

t.test('a key is sk-svc- and 32 random bytes in base64url, each one distinct', async (t) => {
  const store = await storeWithOrg(t);
  const keys = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const { key, record } = await store.keys.create('acme', `k${i}`);
    t.ok(key.startsWith(API_KEY_PREFIX), 'the prefix');
    const random = key.slice(API_KEY_PREFIX.length);
    t.match(random, /^[A-Za-z0-9_-]{43}$/, 'base64url without padding');
    t.equal(Buffer.from(random, 'base64url').length, 32, '32 bytes');
    t.equal(Buffer.from(random, 'base64url').toString('base64url'), random, 'canonical base64url');
    t.ok(isWellFormedApiKey(key));
    t.equal(record.last4, key.slice(-4));
    keys.add(key);
  }
  t.equal(keys.size, 200, 'no two keys alike');
  // Entropy: over 200 × 32 bytes each bit is set about half the time (a constant or counter part would show).
  const bytes = Buffer.concat([...keys].map((key) => Buffer.from(key.slice(API_KEY_PREFIX.length), 'base64url')));
  let ones = 0;
  for (const byte of bytes) for (let bit = 0; bit < 8; bit++) ones += (byte >> bit) & 1;
  const share = ones / (bytes.length * 8);
  t.ok(share > 0.47 && share < 0.53, `about half the bits set (${share.toFixed(3)})`);
  const distinctBytes = new Set(bytes).size;
  t.equal(distinctBytes, 256, 'every byte value occurs');
});

t.test('malformed keys are told apart before any lookup', async (t) => {
  t.notOk(isWellFormedApiKey('sk-svc-short'));
  t.notOk(isWellFormedApiKey('sk-ant-' + 'a'.repeat(43)));
  t.notOk(isWellFormedApiKey('sk-svc-' + 'a'.repeat(42) + '='));
  t.ok(isWellFormedApiKey('sk-svc-' + 'a'.repeat(43)));
});

t.test('only the hash is at rest: the key strings are nowhere in the database files', sqliteOnly, async (t) => {
  const dir = tempDir();
  const store = await openStore({ dataDir: dir });
  await store.orgs.create('acme');
  const created: CreatedApiKey[] = [];
  for (let i = 0; i < 20; i++) created.push(await store.keys.create('acme', `key ${i}`));
  const files = () =>
    ['gateway.db', 'gateway.db-wal', 'gateway.db-shm'].map((name) => join(dir, name)).filter(existsSync);
  const check = (when: string): void => {
    const bytes = Buffer.concat(files().map((file) => readFileSync(file)));
    t.ok(bytes.length > 0, `${when}: database bytes read`);
    for (const { key, record } of created) {
      const random = key.slice(API_KEY_PREFIX.length);
      t.equal(bytes.indexOf(key), -1, `${when}: ${record.id}'s key is not there`);
      t.equal(bytes.indexOf(random), -1, `${when}: nor its random part`);
      t.equal(bytes.indexOf(Buffer.from(random, 'base64url')), -1, `${when}: nor its raw bytes`);
    }
    t.ok(bytes.indexOf(hashApiKey(created[0]!.key)) >= 0, `${when}: the hash is (so these are the right files)`);
  };
  t.ok(
    files().some((file) => file.endsWith('-wal')),
    'the WAL file exists while open',
  );
  check('open');
  await store.close();
  check('closed');
});

t.test('a key is found by the SHA-256 of its string, and only by it', async (t) => {
  const store = await storeWithOrg(t);
  const { key, record } = await store.keys.create('acme', 'ci');
  t.same((await store.keys.findByHash(hashApiKey(key)))?.id, record.id);
  t.equal(await store.keys.findByHash(hashApiKey(key + 'x')), undefined);
  t.equal(await store.keys.findByHash(key), undefined, 'the key itself is not a lookup value');
});

t.test('a revoked key stays revoked', async (t) => {
  const where = await freshStoreOptions();
  let store = await openStore({ ...where, touchFlushMs: 10 });
  await store.orgs.create('acme');
  const { key, record } = await store.keys.create('acme', 'ci');
  const revoked = await store.keys.revoke(record.id);
  t.equal(revoked.status, 'revoked');
  t.ok(revoked.revokedAt instanceof Date);
  const again = await store.keys.revoke(record.id);
  t.equal(again.status, 'revoked', 'revoking twice leaves it revoked');
  t.equal(again.revokedAt?.getTime(), revoked.revokedAt?.getTime(), 'with its first revocation time');
  store.keys.touch(record.id);
  await store.keys.flushTouches();
  t.equal((await store.keys.findByHash(hashApiKey(key)))?.status, 'revoked', 'use does not revive it');
  t.notOk('unrevoke' in store.keys || 'enable' in store.keys || 'restore' in store.keys, 'the API has no way back');
  await store.close();
  store = await openStore(where);
  t.teardown(() => store.close());
  t.equal((await store.keys.get(record.id)).status, 'revoked', 'after a restart too');
  t.same(
    (await store.keys.list('acme')).map((k) => k.status),
    ['revoked'],
    'and in the list',
  );
  await t.rejects(store.keys.revoke('key_nope'), { code: 'GW_ERR_STORE_KEY_NOT_FOUND' });
});

t.test('touch is coalesced: last-used times are written in one batch, not once per request', sqliteOnly, async (t) => {
  const updates: string[] = [];
  let committed: () => void = () => {};
  const store = await storeWithOrg(t, {
    touchFlushMs: 100,
    log: (event) => {
      if (event.level !== 'query') return;
      if (/^update "api_keys" set "last_used_at"/.test(event.query.sql)) updates.push(event.query.sql);
      if (event.query.sql === 'commit') committed();
    },
  });
  const a = (await store.keys.create('acme', 'a')).record;
  const b = (await store.keys.create('acme', 'b')).record;
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < 1000; i++) store.keys.touch(i % 2 ? a.id : b.id, new Date(base + i));
  store.keys.touch(a.id, new Date(base - 5000)); // an older use never moves the time back
  t.equal(updates.length, 0, 'no write per touch');
  t.equal(store.keys.pendingTouches, 2, 'one pending time per key');
  t.equal((await store.keys.get(a.id)).lastUsedAt?.getTime(), base + 999, 'the store already shows the pending time');

  const reader = new SQLite(store.path, { readonly: true });
  t.teardown(() => reader.close());
  const onDisk = (id: string): unknown =>
    (reader.prepare('select last_used_at from api_keys where id = ?').get(id) as { last_used_at: unknown })
      .last_used_at;
  t.equal(onDisk(a.id), null, 'not on disk before the flush');

  // The flush's timer, then its transaction's commit: the batch is on disk.
  await heldOpen(new Promise<void>((resolve) => (committed = resolve)));
  t.equal(updates.length, 2, 'one update per key, once');
  t.equal(store.keys.pendingTouches, 0);
  t.equal(onDisk(a.id), base + 999, 'the latest use of a');
  t.equal(onDisk(b.id), base + 998, 'the latest use of b');

  store.keys.touch(a.id, new Date(base));
  await store.keys.flushTouches();
  t.equal(onDisk(a.id), base + 999, 'a later flush of an older time keeps the newer one');
});

t.test('close writes the pending last-used times', async (t) => {
  const where = await freshStoreOptions();
  const store = await openStore({ ...where, touchFlushMs: 60_000 });
  await store.orgs.create('acme');
  const { record } = await store.keys.create('acme', 'ci');
  store.keys.touch(record.id, new Date(1_700_000_000_000));
  await store.close();
  const again = await openStore(where);
  t.teardown(() => again.close());
  t.equal((await again.keys.get(record.id)).lastUsedAt?.getTime(), 1_700_000_000_000);
});
