// The meter's ledger writes: holds, settlements, and the orphan sweep that releases holds no process settles.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { GatewayConfig } from '../../config/types.js';
import { meterPlugin } from '../../plugins/meter/index.js';
import { Ledger, type Hold } from '../../plugins/meter/ledger.js';
import { NO_USAGE } from '../../plugins/meter/price.js';
import type { PluginContext } from '../../plugins/plugin-module.js';
import { openStore, type Store } from '../../store/store.js';
import { kyselyTransactor } from '../../store/transactor.js';
import { heldOpen } from '../helpers/held-open.js';

let store: Store;
let ledger: Ledger;
let orgId: string;
let keyId: string;
let counter = 0;
/** A query a test waits for (the orphan sweep's, which runs on the plugin's timer), seen in the store's query log. */
let awaitedQuery: { pattern: RegExp; seen: () => void } | undefined;
const nextQuery = (pattern: RegExp): Promise<void> => new Promise((seen) => (awaitedQuery = { pattern, seen }));
t.before(async () => {
  store = await openStore({
    dataDir: mkdtempSync(join(tmpdir(), 'meter-ledger-')),
    log: (event) => {
      if (event.level !== 'query' || awaitedQuery?.pattern.test(event.query.sql) !== true) return;
      awaitedQuery.seen();
      awaitedQuery = undefined;
    },
  });
  orgId = (await store.orgs.create('acme')).id;
  await store.orgs.addCredits('acme', 1_000_000);
  keyId = (await store.keys.create('acme', 'k')).record.id;
  ledger = new Ledger(store.db, store.transact);
});
t.teardown(() => store.close());

const newHold = (holdMicros: number, createdAt = Date.now()): Hold => ({
  id: `req-${++counter}`,
  orgId,
  keyId,
  dialect: 'chat',
  holdMicros,
  createdAt,
});
const balance = async (): Promise<number> => (await store.orgs.get(orgId)).balanceMicros;
const row = (id: string) => store.db.selectFrom('usage').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

t.test('a hold takes its amount from the balance and writes a held row', async (t) => {
  const before = await balance();
  const hold = newHold(700);
  t.same(await ledger.hold(hold), { taken: true });
  t.equal(await balance(), before - 700);
  t.match(await row(hold.id), { state: 'held', hold_micros: 700, org_id: orgId, key_id: keyId, cost_micros: 0 });
  await ledger.settle(hold, { usage: { ...NO_USAGE, input: 10 }, costMicros: 2, status: 200, durationMs: 5 });
  t.equal(await balance(), before - 2);
  t.match(await row(hold.id), { state: 'settled', input_tokens: 10, cost_micros: 2, status: 200, duration_ms: 5 });
});

t.test('no hold is taken at a zero or negative balance, and the balance is reported', async (t) => {
  const other = await store.orgs.create('poor');
  const hold = { ...newHold(5), orgId: other.id };
  t.same(await ledger.hold(hold), { taken: false, balanceMicros: 0 });
  await store.db.updateTable('orgs').set({ balance_micros: -3 }).where('id', '=', other.id).execute();
  t.same(await ledger.hold(hold), { taken: false, balanceMicros: -3 });
  t.same(await ledger.hold({ ...hold, orgId: 'org_gone' }), { taken: false, balanceMicros: undefined });
  t.equal((await store.orgs.get(other.id)).balanceMicros, -3);
});

t.test(
  'orphan sweep: a hold older than the limit that no request claims is refunded and marked released',
  async (t) => {
    const before = await balance();
    const old = newHold(1000, Date.now() - 10_000);
    const young = newHold(1000);
    const mine = newHold(1000, Date.now() - 10_000);
    for (const hold of [old, young, mine]) await ledger.hold(hold);
    t.equal(await balance(), before - 3000);
    t.equal(await ledger.releaseOrphans(Date.now() - 5000, (id) => id === mine.id), 1, 'only the old unclaimed hold');
    t.equal(await balance(), before - 2000, 'its hold is back');
    t.match(await row(old.id), { state: 'released', cost_micros: 0 });
    t.match(await row(young.id), { state: 'held' });
    t.match(await row(mine.id), { state: 'held' });
    t.equal(await ledger.releaseOrphans(Date.now() - 5000, (id) => id === mine.id), 0, 'released once');
    t.equal(await balance(), before - 2000);

    // A request that was only slow settles after all: it pays its cost, and its hold is not refunded twice.
    await ledger.settle(old, { usage: { ...NO_USAGE, output: 3 }, costMicros: 40, status: 200, durationMs: 1 });
    t.equal(await balance(), before - 2000 - 40);
    t.match(await row(old.id), { state: 'settled', cost_micros: 40 });
    for (const hold of [young, mine])
      await ledger.settle(hold, { usage: NO_USAGE, costMicros: 0, status: 200, durationMs: 1 });
    t.equal(await balance(), before - 40);
  },
);

t.test('orphan sweep: the plugin releases, on its own timer, the holds a killed process left', async (t) => {
  const before = await balance();
  const context = {
    config: {
      pricing: {
        input_per_mtok: 0.2,
        output_per_mtok: 0.8,
        cache_write_5m_multiplier: 1.25,
        cache_write_1h_multiplier: 2,
        cache_read_multiplier: 0.1,
        search_per_1000: 10,
      },
    } as GatewayConfig,
    store: async () => store,
  } as unknown as PluginContext;
  const sweepAtStart = nextQuery(/^select .* from "usage" where "state" = \?/);
  const plugin = await meterPlugin.create({ orphan_hold_ms: 60_000, sweep_interval_ms: 10 }, context);
  await sweepAtStart;
  // What a process killed two minutes ago leaves: the balance debited, the row held; and a hold of now.
  const left = newHold(2500, Date.now() - 120_000);
  const young = newHold(500);
  for (const hold of [left, young]) await ledger.hold(hold);
  t.equal(await balance(), before - 3000);
  // A sweep on the timer releases the orphan; close() waits for that sweep to commit.
  await heldOpen(nextQuery(/^update "usage" set "state" = \?/));
  await plugin.close?.();
  t.match(await row(left.id), { state: 'released' });
  t.match(await row(young.id), { state: 'held' }, 'not a hold younger than orphan_hold_ms');
  t.equal(await balance(), before - 500);
  await ledger.settle(young, { usage: NO_USAGE, costMicros: 0, status: 200, durationMs: 1 });
  t.equal(await balance(), before);
});

t.test('holds and settlements of one event-loop turn share one commit and stay correct', async (t) => {
  const before = await balance();
  const holds = Array.from({ length: 50 }, () => newHold(100));
  const results = await Promise.all(holds.map((hold) => ledger.hold(hold)));
  t.ok(results.every((result) => result.taken));
  t.equal(await balance(), before - 5000);
  await Promise.all(
    holds.map((hold) => ledger.settle(hold, { usage: NO_USAGE, costMicros: 7, status: 200, durationMs: 1 })),
  );
  t.equal(await balance(), before - 350);
  const settled = await store.db
    .selectFrom('usage')
    .select('id')
    .where(
      'id',
      'in',
      holds.map((hold) => hold.id),
    )
    .where('state', '=', 'settled')
    .execute();
  t.equal(settled.length, 50);
});

t.test('a unit that fails in a shared commit fails alone', async (t) => {
  const before = await balance();
  const first = newHold(100);
  const duplicate = { ...first };
  const third = newHold(100);
  const results = await Promise.allSettled([ledger.hold(first), ledger.hold(duplicate), ledger.hold(third)]);
  t.same(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'fulfilled'],
    'the duplicate row id fails, the others commit',
  );
  t.equal(await balance(), before - 200);
  for (const hold of [first, third])
    await ledger.settle(hold, { usage: NO_USAGE, costMicros: 0, status: 200, durationMs: 1 });
});

t.test("the same writes through Kysely's own transactions (the path of a shared SQL server)", async (t) => {
  const portable = new Ledger(store.db, kyselyTransactor(store.db));
  const before = await balance();
  const hold = newHold(300);
  t.same(await portable.hold(hold), { taken: true });
  t.equal(await balance(), before - 300);
  await portable.settle(hold, { usage: { ...NO_USAGE, output: 2 }, costMicros: 9, status: 200, durationMs: 1 });
  t.equal(await balance(), before - 9);
  t.match(await row(hold.id), { state: 'settled', output_tokens: 2, cost_micros: 9 });
  const poor = await store.orgs.create('poorer');
  t.same(await portable.hold({ ...newHold(5), orgId: poor.id }), { taken: false, balanceMicros: 0 });
});
