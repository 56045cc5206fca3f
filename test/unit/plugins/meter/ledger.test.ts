// The meter's ledger writes: holds, settlements, and the orphan sweep that releases holds no process settles.
import t from 'tap';
import type { GatewayConfig } from '../../../../config/types.js';
import { meterPlugin } from '../../../../plugins/meter/index.js';
import { Ledger, type Hold } from '../../../../plugins/meter/ledger.js';
import { NO_USAGE } from '../../../../plugins/meter/price.js';
import type { PluginContext } from '../../../../plugins/plugin-module.js';
import { auditBalances } from '../../../../store/balance-audit.js';
import { openStore, type Store } from '../../../../store/store.js';
import { kyselyTransactor } from '../../../../store/transactor.js';
import { heldOpen } from '../../../helpers/held-open.js';
import { freshStoreOptions, testDialect } from '../../../helpers/test-store.js';
import { DEFAULT_PRICES } from '../../../kit/prices.js';

/** A statement parameter's placeholder: `?` on SQLite, `$1`… on PostgreSQL. */
const PARAM = String.raw`(\?|\$\d+)`;

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
    ...(await freshStoreOptions()),
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
      pricing: DEFAULT_PRICES,
      batch: { discount_percent: 50 },
      service_tiers: { default: { price_percent: 100 } },
    } as GatewayConfig,
    store: async () => store,
  } as unknown as PluginContext;
  const sweepAtStart = nextQuery(new RegExp(`^select .* from "usage" where "state" = 'held'`));
  const plugin = await meterPlugin.create({ orphan_hold_ms: 60_000, sweep_interval_ms: 10 }, context);
  await sweepAtStart;
  // The release is awaited from before the holds: a sweep on the timer may release the orphan as soon as it is held.
  const released = nextQuery(new RegExp(`^update "usage" set "state" = ${PARAM}`));
  // What a process killed two minutes ago leaves: the balance debited, the row held; and a hold of now.
  const left = newHold(2500, Date.now() - 120_000);
  const young = newHold(500);
  for (const hold of [left, young]) t.same(await ledger.hold(hold), { taken: true });
  // A sweep on the timer releases the orphan; close() waits for that sweep to commit.
  await heldOpen(released);
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

/** A new organization with `micros` micro-credits. */
const newOrg = async (name: string, micros: number): Promise<string> => {
  const { id } = await store.orgs.create(name);
  await store.orgs.addCredits(id, micros);
  return id;
};
const balanceOf = async (id: string): Promise<number> => (await store.orgs.get(id)).balanceMicros;

t.test(
  'holds of one turn that the balance covers only in part: exactly the first ones are taken, as one at a time',
  async (t) => {
    const short = await newOrg('short', 9_999);
    const rich = await newOrg('rich', 1_000_000);
    // 153 holds of 100 (more than one statement takes), another organization's in between: a hold is
    // taken while the balance left by the ones before it is above zero, so the 100th (at 99) is the last.
    const holds = Array.from({ length: 153 }, (_, index) => ({
      ...newHold(100),
      orgId: index % 3 === 2 ? rich : short,
    }));
    const results = await Promise.all(holds.map((hold) => ledger.hold(hold)));
    const shortResults = results.filter((_, index) => holds[index]!.orgId === short);
    t.same(
      shortResults.map((result) => result.taken),
      [...Array<boolean>(100).fill(true), false, false],
      'the first 100 of its holds',
    );
    t.same(shortResults.at(-1), { taken: false, balanceMicros: -1 }, 'a refused hold reports the balance it saw');
    t.equal(await balanceOf(short), -1);
    t.equal(await balanceOf(rich), 1_000_000 - 51 * 100, "the other organization's holds are all taken");
    const written = await store.db.selectFrom('usage').select('id').where('org_id', '=', short).execute();
    t.same(
      written.map((row) => row.id).sort(),
      holds
        .filter((hold) => hold.orgId === short)
        .slice(0, 100)
        .map((hold) => hold.id)
        .sort(),
      'a held row for each hold taken, none for the refused one',
    );
    const [first, second] = [newHold(300), newHold(10)].map((hold) => ({ ...hold, orgId: rich }));
    await store.db.updateTable('orgs').set({ balance_micros: 250 }).where('id', '=', rich).execute();
    t.same(
      await Promise.all([ledger.hold(first!), ledger.hold(second!)]),
      [{ taken: true }, { taken: false, balanceMicros: -50 }],
      'a hold needs a balance above zero, not one that covers it',
    );
  },
);

t.test('in one turn the settlements are written before the holds: a refund makes room for a new hold', async (t) => {
  const tight = await newOrg('tight', 100);
  const running = { ...newHold(100), orgId: tight };
  t.same(await ledger.hold(running), { taken: true });
  const next = { ...newHold(50), orgId: tight };
  const [held] = await Promise.all([
    ledger.hold(next),
    ledger.settle(running, { usage: NO_USAGE, costMicros: 30, status: 200, durationMs: 1 }),
  ]);
  t.same(held, { taken: true }, 'the hold saw the balance of 70 the settlement left');
  t.equal(await balanceOf(tight), 20);
});

t.test('a settlement batch with a hold the sweep released refunds only the holds still held', async (t) => {
  const org = await newOrg('swept', 10_000);
  const old = Date.now() - 60_000;
  const holds = [newHold(1000, old), newHold(2000, old), newHold(3000, old)].map((hold) => ({ ...hold, orgId: org }));
  for (const hold of holds) await ledger.hold(hold);
  const released = holds[1]!;
  t.equal(await ledger.releaseOrphans(Date.now(), (id) => id !== released.id), 1);
  t.equal(await balanceOf(org), 10_000 - 4000, 'the released hold is back');
  await Promise.all(
    holds.map((hold, index) =>
      ledger.settle(hold, {
        usage: { ...NO_USAGE, input: 10 + index, output: 20 + index },
        costMicros: 100 * (index + 1),
        status: 200 + index,
        durationMs: 7 + index,
      }),
    ),
  );
  t.equal(await balanceOf(org), 10_000 - 600, 'each pays its cost; the released hold is not refunded twice');
  for (const [index, hold] of holds.entries()) {
    t.match(await row(hold.id), {
      state: 'settled',
      input_tokens: 10 + index,
      output_tokens: 20 + index,
      cost_micros: 100 * (index + 1),
      status: 200 + index,
      duration_ms: 7 + index,
      hold_micros: hold.holdMicros,
    });
  }
  t.equal((await store.orgs.get(org)).spentMicros, 600);
  const [audit] = await auditBalances(store.db, org);
  t.equal(audit?.discrepancyMicros, 0, 'the books balance');
});

t.test('a write the database refuses fails alone; the rest of its turn commits', async (t) => {
  const doomed = await newOrg('doomed', 1_000);
  const fine = await newOrg('fine', 1_000);
  const doomedHold = { ...newHold(100), orgId: doomed };
  const fineHold = { ...newHold(100), orgId: fine };
  for (const hold of [doomedHold, fineHold]) await ledger.hold(hold);
  // A cost that would take the balance below the lowest amount the store holds: its triggers refuse it.
  await store.db
    .updateTable('orgs')
    .set({ balance_micros: -Number.MAX_SAFE_INTEGER + 50 })
    .where('id', '=', doomed)
    .execute();
  const newcomer = { ...newHold(100), orgId: fine };
  const results = await Promise.allSettled([
    ledger.settle(doomedHold, { usage: NO_USAGE, costMicros: 200, status: 200, durationMs: 1 }),
    ledger.settle(fineHold, { usage: NO_USAGE, costMicros: 10, status: 200, durationMs: 1 }),
    ledger.hold(newcomer),
  ]);
  t.same(
    results.map((result) => result.status),
    ['rejected', 'fulfilled', 'fulfilled'],
  );
  t.match(await row(doomedHold.id), { state: 'held' }, 'the refused settlement wrote nothing');
  t.match(await row(fineHold.id), { state: 'settled', cost_micros: 10 });
  t.match(await row(newcomer.id), { state: 'held' });
  t.equal(await balanceOf(fine), 1_000 - 10 - 100);
});

t.test("a batch line's hold is taken only if the balance covers it whole", async (t) => {
  const batchOrg = await newOrg('batch-whole', 1_000);
  const line = (holdMicros: number): Hold => ({ ...newHold(holdMicros), orgId: batchOrg, batchId: 'batch_1' });
  t.same(await ledger.hold(line(1_001)), { taken: false, balanceMicros: 1_000 }, 'one micro-credit short');
  t.same(await ledger.hold(line(1_000)), { taken: true }, 'exactly the balance');
  t.equal(await balanceOf(batchOrg), 0);
  const [first, second] = [line(400), line(600)];
  await store.orgs.addCredits(batchOrg, 999);
  t.same(
    await Promise.all([ledger.hold(first!), ledger.hold(second!)]),
    [{ taken: true }, { taken: false, balanceMicros: 599 }],
    'in one turn: the second fits only what the first left (ahead + hold ≤ balance)',
  );
  t.match(await row(first!.id), { state: 'held', batch_id: 'batch_1' }, 'the row names its batch');
});

t.test(
  'regression: a live hold after a refused batch hold in the same commit is still taken (the taken holds were matched by count per organization, marking the batch hold taken)',
  async (t) => {
    const mixed = await newOrg('mixed', 500);
    const batchLine = { ...newHold(1_000), orgId: mixed, batchId: 'batch_2' };
    const live = { ...newHold(100), orgId: mixed };
    t.same(
      await Promise.all([ledger.hold(batchLine), ledger.hold(live)]),
      [{ taken: false, balanceMicros: 400 }, { taken: true }],
      'the batch hold does not fit 500; the live one needs only a balance above zero',
    );
    t.equal(await balanceOf(mixed), 400);
    const rows = await store.db.selectFrom('usage').select('id').where('org_id', '=', mixed).execute();
    t.same(
      rows.map((written) => written.id),
      [live.id],
      'a held row for the live hold only',
    );
  },
);

t.test(
  "the writes of one turn cost a statement per kind of row, one for the keys' spend and one for the money, not some per request",
  async (t) => {
    let statements = 0;
    const counted = new Ledger(store.db, (work) =>
      store.transact((sql) =>
        work({
          run(query) {
            statements++;
            return sql.run(query);
          },
        }),
      ),
    );
    // PostgreSQL: and first the lock of the batch's organizations.
    const locks = testDialect === 'postgres' ? 1 : 0;
    const holds = Array.from({ length: 50 }, () => newHold(10));
    await Promise.all(holds.map((hold) => counted.hold(hold)));
    t.equal(statements, 2 + locks, "50 holds: their rows, and the organization's debit");
    statements = 0;
    await Promise.all(
      holds.map((hold) => counted.settle(hold, { usage: NO_USAGE, costMicros: 1, status: 200, durationMs: 1 })),
    );
    t.equal(statements, 3 + locks, "50 settlements: their rows, their key's spend of the day, and the money");
  },
);

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
