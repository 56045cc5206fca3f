// The store on a real PostgreSQL: what differs from SQLite (numbers from int8 and numeric, the URL
// shown without its password, ping), migrations when several nodes start at once on an empty
// database, and a first start of three nodes, which makes no demo organization on a shared store.
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { createDemoKeyIfEmpty } from '../../../admin/demo-org.js';
import { usageByDay } from '../../../admin/usage.js';
import { createPool } from '../../../store/postgres-database.js';
import { openStore, type Store, type StoreOptions } from '../../../store/store.js';
import { freshStoreOptions } from '../../helpers/test-store.js';

async function opened(t: Test, options: StoreOptions): Promise<Store> {
  const store = await openStore(options);
  t.teardown(() => store.close());
  return store;
}

t.test('bigint and numeric values arrive as exact numbers; one beyond 2^53 fails its query', async (t) => {
  const store = await opened(t, await freshStoreOptions('postgres'));
  const { rows } = await sql<{
    big: unknown;
    total: unknown;
    count: unknown;
  }>`select 9007199254740991::int8 as big, sum(x) as total, count(*) as count from (values (1::int8), (2::int8)) as v(x)`.execute(
    store.db,
  );
  t.same(rows, [{ big: Number.MAX_SAFE_INTEGER, total: 3, count: 2 }], 'numbers, not strings or bigints');
  await t.rejects(sql`select 9007199254740993::int8 as big`.execute(store.db), RangeError, 'int8 beyond 2^53');
  await t.rejects(
    sql`select sum(x) as total from (values (9007199254740991::int8), (2::int8)) as v(x)`.execute(store.db),
    RangeError,
    'a numeric sum beyond 2^53',
  );
  await store.ping();
});

t.test('the store names its PostgreSQL URL without the password', async (t) => {
  const options = await freshStoreOptions('postgres');
  const url = new URL(options.postgres!.url);
  url.password = 's3cret-pass';
  const store = await opened(t, { ...options, postgres: { ...options.postgres!, url: url.toString() } });
  t.notMatch(store.path, /s3cret-pass/);
  t.match(store.path, /^postgres:\/\/gateway@127\.0\.0\.1:\d+\/store_/);
  t.ok(store.shared);
});

t.test('nodes opening one empty database together all start, and each migration is applied once', async (t) => {
  const options = await freshStoreOptions('postgres');
  const stores = await Promise.all(Array.from({ length: 5 }, () => openStore(options)));
  t.teardown(() => Promise.all(stores.map((store) => store.close())));
  const applied = stores.flatMap((store) => store.migrated).sort();
  t.same(applied, [
    '0001-initial',
    '0002-usage-holds',
    '0003-money-integrity',
    '0004-node-leases',
    '0005-console',
    '0006-caps',
    '0007-payments',
    '0008-alerts',
    '0009-batches',
    '0010-service-tiers',
  ]);
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(stores[0]!.db);
  t.equal(rows.length, 10, 'one row per migration');
});

t.test('three nodes starting on an empty shared store make no demo organization, and none fails', async (t) => {
  const options = await freshStoreOptions('postgres');
  t.same(await Promise.all([1, 2, 3].map(() => createDemoKeyIfEmpty(options))), [undefined, undefined, undefined]);
  const store = await opened(t, options);
  t.same(await store.orgs.list(), [], 'the fleet makes its organizations with the CLI');
});

t.test('usage by day sums whole numbers per UTC day on PostgreSQL', async (t) => {
  const store = await opened(t, await freshStoreOptions('postgres'));
  const org = await store.orgs.create('acme');
  const key = await store.keys.create('acme', 'k');
  const day = Date.UTC(2026, 0, 10);
  const row = (id: string, at: number, cost: number) => ({
    id,
    org_id: org.id,
    key_id: key.record.id,
    dialect: 'chat' as const,
    input_tokens: 10,
    output_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    searches: 0,
    cost_micros: cost,
    status: 200,
    duration_ms: 1,
    created_at: at,
  });
  await store.db
    .insertInto('usage')
    .values([row('a', day + 1, 7), row('b', day + 86_399_999, 8), row('c', day + 86_400_000, 9)])
    .execute();
  const report = await usageByDay(store.db, org.id, 3, day + 86_400_000 + 5);
  t.same(
    report.daily.map((daily) => [daily.date, daily.requests, daily.cost_micros, daily.input_tokens]),
    [
      ['2026-01-10', 2, 15, 20],
      ['2026-01-11', 1, 9, 10],
    ],
  );
  t.equal(report.totals.cost_micros, 24);
});

t.test(
  'regression: a connection that breaks while checked out (a transaction between its queries) does not end the process',
  async (t) => {
    const options = await freshStoreOptions('postgres');
    const pool = createPool(options.postgres!);
    t.teardown(() => pool.end());
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    // Not events.once: it would take the client's 'error' event as its own failure.
    const ended = new Promise((resolve) => client.once('end', resolve));
    // Another connection ends this one's backend, as a server restart would; no query is under way on it.
    await pool.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    await ended;
    await t.rejects(client.query('select 1'), 'the broken connection fails its next query');
    client.release();
    t.same((await pool.query<{ one: number }>('select 1 as one')).rows, [{ one: 1 }], 'the pool serves on');
  },
);
