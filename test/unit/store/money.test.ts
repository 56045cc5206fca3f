// Money in the store (issue #11): whole micro-credits within the safe-integer range, refused otherwise by
// the database itself; every credit added recorded; the balance invariant read back exactly; and the
// migration that repairs rows written as floats before it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import t from 'tap';
import { auditBalances } from '../../../store/balance-audit.js';
import { migrations } from '../../../store/migrations/index.js';
import type { Database } from '../../../store/schema.js';
import { DATABASE_FILE, openStore } from '../../../store/store.js';

const newDir = (): string => mkdtempSync(join(tmpdir(), 'store-money-'));

t.test('the store refuses a money value that is not a whole number of micro-credits', async (t) => {
  const store = await openStore({ dataDir: newDir() });
  t.teardown(() => store.close());
  const org = await store.orgs.create('acme');
  for (const value of [1.5, 1e30, -1e30, Number.MAX_SAFE_INTEGER + 2]) {
    await t.rejects(
      store.db.updateTable('orgs').set({ balance_micros: value }).where('id', '=', org.id).execute(),
      /money must be whole micro-credits/,
      `balance ${value}`,
    );
  }
  await t.rejects(
    store.db.updateTable('orgs').set({ spent_micros: -1 }).where('id', '=', org.id).execute(),
    /money/,
    'lifetime spend is never negative',
  );
  t.equal((await store.orgs.get(org.id)).balanceMicros, 0, 'nothing was written');
});

t.test('credits added are recorded as grants, and an addition past the largest balance is refused', async (t) => {
  const store = await openStore({ dataDir: newDir() });
  t.teardown(() => store.close());
  const org = await store.orgs.create('acme');
  await store.orgs.addCredits('acme', 2_500_000, 'cli');
  await store.orgs.addCredits('acme', 500_000, 'admin api');
  const grants = await store.db
    .selectFrom('credit_grants')
    .select(['amount_micros', 'note'])
    .where('org_id', '=', org.id)
    .orderBy('created_at')
    .execute();
  t.same(
    grants.map((grant) => [Number(grant.amount_micros), grant.note]).sort(),
    [
      [2_500_000, 'cli'],
      [500_000, 'admin api'],
    ].sort(),
  );
  await t.rejects(store.orgs.addCredits('acme', Number.MAX_SAFE_INTEGER), { code: 'GW_ERR_STORE_INVALID' });
  t.same(await auditBalances(store.db, org.id), [
    {
      orgId: org.id,
      balanceMicros: 3_000_000,
      creditsAddedMicros: 3_000_000,
      settledCostMicros: 0,
      openHoldsMicros: 0,
      discrepancyMicros: 0,
    },
  ]);
});

t.test(
  'the money migration rounds floats, zeroes out-of-range values (releasing such holds) and opens each organization with a balancing grant',
  async (t) => {
    const dataDir = newDir();
    // A store as it was before the migration, with the rows issue #11 found: a float balance and a 9.87e28 hold.
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SQLite(join(dataDir, DATABASE_FILE)) }),
    });
    const migrated = await new Migrator({ db, provider: migrations }).migrateTo('0002-usage-holds');
    t.equal(migrated.error, undefined);
    await db
      .insertInto('orgs')
      .values({ id: 'org_a', name: 'a', balance_micros: 16_777_216.4, spent_micros: 1_000.5, created_at: 1 })
      .execute();
    await db
      .insertInto('api_keys')
      .values({
        id: 'key_a',
        org_id: 'org_a',
        name: 'k',
        key_hash: 'h',
        last4: 'abcd',
        created_at: 1,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    const row = {
      org_id: 'org_a',
      key_id: 'key_a',
      dialect: 'chat' as const,
      input_tokens: 1,
      output_tokens: 1,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      searches: 0,
      status: 200,
      duration_ms: 1,
      created_at: 1,
    };
    await db
      .insertInto('usage')
      .values({ ...row, id: 'r1', state: 'settled', cost_micros: 1_000.5, hold_micros: 0 })
      .execute();
    await db
      .insertInto('usage')
      .values({ ...row, id: 'r2', state: 'held', cost_micros: 0, hold_micros: 9.87e28 })
      .execute();
    await db.destroy();

    const store = await openStore({ dataDir });
    t.teardown(() => store.close());
    const org = await store.orgs.get('org_a');
    t.equal(org.balanceMicros, 16_777_216, 'the float balance is rounded');
    t.equal(org.spentMicros, 1_001);
    const rows = await store.db
      .selectFrom('usage')
      .select(['id', 'state', 'hold_micros', 'cost_micros'])
      .orderBy('id')
      .execute();
    t.same(
      rows.map((r) => [r.id, r.state, Number(r.cost_micros), Number(r.hold_micros)]),
      [
        ['r1', 'settled', 1_001, 0],
        ['r2', 'released', 0, 0],
      ],
      'costs rounded, the huge hold released at zero',
    );
    const [audit] = await auditBalances(store.db, 'org_a');
    t.equal(audit?.discrepancyMicros, 0, 'the opening grant makes the books balance');
    t.equal(audit?.creditsAddedMicros, 16_777_216 + 1_001);
  },
);
