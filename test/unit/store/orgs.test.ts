import t from 'tap';
import { formatCredits, MICROS_PER_CREDIT, parseCredits } from '../../../store/credits.js';
import { openStore, type Store } from '../../../store/store.js';
import { freshStoreOptions, testDialect } from '../../helpers/test-store.js';

async function newStore(t: { teardown(fn: () => unknown): void }): Promise<Store> {
  const store = await openStore(await freshStoreOptions());
  t.teardown(() => store.close());
  return store;
}

t.test('credits are integer micro-credits: parsed exactly, never through floats', async (t) => {
  t.equal(MICROS_PER_CREDIT, 1_000_000);
  t.equal(parseCredits('1'), 1_000_000);
  t.equal(parseCredits('12.5'), 12_500_000);
  t.equal(parseCredits('0.000001'), 1);
  t.equal(parseCredits('0.1'), 100_000);
  t.equal(parseCredits('0.7'), 700_000, '0.7 × 1e6 is 699999.9999 in floats');
  t.equal(parseCredits('1234567.890123'), 1_234_567_890_123);
  for (const bad of ['', '-1', '1e3', '1.0000001', '.5', 'ten', '1,5', '9999999999999']) {
    t.throws(() => parseCredits(bad), { code: 'GW_ERR_STORE_INVALID' }, `'${bad}' is refused`);
  }
  t.equal(formatCredits(12_500_000), '12.5');
  t.equal(formatCredits(1), '0.000001');
  t.equal(formatCredits(3_000_000), '3');
  t.equal(formatCredits(-2_500_000), '-2.5');
});

t.test('adding credits sums micro-credits exactly in the balance', async (t) => {
  const store = await newStore(t);
  const org = await store.orgs.create('acme');
  t.equal(org.balanceMicros, 0, 'a new org starts at zero');
  t.equal(org.spentMicros, 0);
  for (let i = 0; i < 10; i++) await store.orgs.addCredits('acme', parseCredits('0.1'));
  t.equal((await store.orgs.get(org.id)).balanceMicros, 1_000_000, 'ten times 0.1 is exactly 1 credit');
  const after = await store.orgs.addCredits(org.id, parseCredits('2000000000'));
  t.equal(after.balanceMicros, 2_000_000_001_000_000, 'past 32 bits');
  await t.rejects(store.orgs.addCredits('acme', 0), { code: 'GW_ERR_STORE_INVALID' });
  await t.rejects(store.orgs.addCredits('acme', -5), { code: 'GW_ERR_STORE_INVALID' });
  await t.rejects(store.orgs.addCredits('acme', 0.5), { code: 'GW_ERR_STORE_INVALID' });
  await t.rejects(store.orgs.addCredits('nope', 1), { code: 'GW_ERR_STORE_ORG_NOT_FOUND' });
});

t.test('an organization is found by its name or its id; names are unique and not id-shaped', async (t) => {
  const store = await newStore(t);
  const org = await store.orgs.create('acme');
  t.match(org.id, /^org_[A-Za-z0-9_-]{16}$/);
  t.equal((await store.orgs.find('acme'))?.id, org.id);
  t.equal((await store.orgs.find(org.id))?.name, 'acme');
  t.equal(await store.orgs.find('other'), undefined);
  await t.rejects(store.orgs.create('acme'), { code: 'GW_ERR_STORE_ORG_EXISTS' });
  await t.rejects(store.orgs.create('org_123'), { code: 'GW_ERR_STORE_INVALID' });
  await t.rejects(store.orgs.create('  '), { code: 'GW_ERR_STORE_INVALID' });
  await store.orgs.create('beta');
  t.same(
    (await store.orgs.list()).map((o) => o.name),
    ['acme', 'beta'],
  );
});

t.test('members have an e-mail and the role admin or member', async (t) => {
  const store = await newStore(t);
  await store.orgs.create('acme', [{ email: 'Ada@Example.com', role: 'admin' }]);
  await store.orgs.addMember('acme', { email: 'bob@example.com', role: 'member' });
  t.same(
    (await store.orgs.members('acme')).map((m) => [m.email, m.role]),
    [
      ['ada@example.com', 'admin'],
      ['bob@example.com', 'member'],
    ],
  );
  await store.orgs.addMember('acme', { email: 'bob@example.com', role: 'admin' });
  t.equal((await store.orgs.members('acme'))[1]?.role, 'admin', 'adding again changes the role');
  await store.orgs.removeMember('acme', 'BOB@example.com');
  t.same(
    (await store.orgs.members('acme')).map((m) => m.email),
    ['ada@example.com'],
  );
  await t.rejects(store.orgs.removeMember('acme', 'bob@example.com'), { code: 'GW_ERR_STORE_MEMBER_NOT_FOUND' });
  await t.rejects(store.orgs.addMember('acme', { email: 'not-an-email', role: 'member' }), {
    code: 'GW_ERR_STORE_INVALID',
  });
  await t.rejects(store.orgs.addMember('acme', { email: 'c@example.com', role: 'owner' as never }), {
    code: 'GW_ERR_STORE_INVALID',
  });
});

t.test('keys belong to one organization and are listed only under it', async (t) => {
  const store = await newStore(t);
  await store.orgs.create('acme');
  await store.orgs.create('beta');
  const a = await store.keys.create('acme', 'a');
  await store.keys.create('beta', 'b');
  t.same(
    (await store.keys.list('acme')).map((k) => k.id),
    [a.record.id],
  );
  t.equal(a.record.orgId, (await store.orgs.get('acme')).id);
});

t.test('the store uses WAL and enforces foreign keys', async (t) => {
  const store = await newStore(t);
  if (testDialect === 'sqlite') {
    const { sql } = await import('kysely');
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
    t.equal(mode.rows[0]?.journal_mode, 'wal');
  }
  await t.rejects(
    store.db
      .insertInto('api_keys')
      .values({
        id: 'key_x',
        org_id: 'org_missing',
        name: 'x',
        key_hash: 'h',
        last4: 'abcd',
        created_at: 0,
        last_used_at: null,
        revoked_at: null,
      })
      .execute(),
  );
});
