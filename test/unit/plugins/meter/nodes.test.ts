// The meter on one PostgreSQL shared by several gateway nodes, each node a store of its own (its own
// pg pool) and a Ledger: the no-overdraft bound across nodes, batches of two nodes that cannot
// deadlock, and the sweep that releases a dead node's holds by its lease.
import t from 'tap';
import { loadConfig } from '../../../../config/load.js';
import { meterPlugin } from '../../../../plugins/meter/index.js';
import { Ledger, type Hold } from '../../../../plugins/meter/ledger.js';
import { NO_USAGE } from '../../../../plugins/meter/price.js';
import type { PluginContext } from '../../../../plugins/plugin-module.js';
import { auditBalances } from '../../../../store/balance-audit.js';
import { NodeLease } from '../../../../store/node-lease.js';
import { openStore, type Store } from '../../../../store/store.js';
import { isConflict } from '../../../../store/transaction-retry.js';
import { kyselyTransactor, type Transactor } from '../../../../store/transactor.js';
import { freshStoreOptions } from '../../../helpers/test-store.js';

const options = await freshStoreOptions('postgres');
/** Three nodes: three stores (pools) on one database. */
const nodes: Store[] = await Promise.all([1, 2, 3].map(() => openStore(options)));
t.teardown(() => Promise.all(nodes.map((node) => node.close())));
const [first] = nodes as [Store, Store, Store];
const keyOf = new Map<string, string>();
let counter = 0;

async function newOrg(name: string, micros: number): Promise<string> {
  const org = await first.orgs.create(name);
  if (micros > 0) await first.orgs.addCredits(org.id, micros);
  keyOf.set(org.id, (await first.keys.create(org.id, 'k')).record.id);
  return org.id;
}
const hold = (orgId: string, holdMicros: number): Hold => ({
  id: `req-${++counter}`,
  orgId,
  keyId: keyOf.get(orgId)!,
  dialect: 'chat',
  holdMicros,
  createdAt: Date.now(),
});
const balanceOf = async (orgId: string): Promise<number> => (await first.orgs.get(orgId)).balanceMicros;
const balanced = async (orgId: string): Promise<number | undefined> =>
  (await auditBalances(first.db, orgId))[0]?.discrepancyMicros;

t.test(
  'holds from three nodes on a balance that covers three take exactly three, never more, batched or one by one',
  async (t) => {
    const ledgers = nodes.map((node) => new Ledger(node.db, node.transact));
    // All at once: each node's ten holds in one batch, the three batches racing for the row.
    const together = await newOrg('together', 3_000);
    const results = await Promise.all(
      ledgers.flatMap((ledger) => Array.from({ length: 10 }, () => ledger.hold(hold(together, 1_000)))),
    );
    t.equal(results.filter((result) => result.taken).length, 3, 'three of 30 holds');
    t.equal(await balanceOf(together), 0);
    t.equal(await balanced(together), 0);
    // One hold per batch on each node, the nodes interleaving.
    const apart = await newOrg('apart', 3_000);
    const taken = await Promise.all(
      ledgers.map(async (ledger) => {
        let count = 0;
        for (let i = 0; i < 10; i++) if ((await ledger.hold(hold(apart, 1_000))).taken) count++;
        return count;
      }),
    );
    t.equal(
      taken.reduce((sum, count) => sum + count, 0),
      3,
      `three in all (per node: ${taken.join(', ')})`,
    );
    t.equal(await balanceOf(apart), 0);
    t.equal(await balanced(apart), 0);
  },
);

t.test("two nodes' batches that lock the same organizations in opposite orders never deadlock", async (t) => {
  const a = await newOrg('deadlock-a', 1_000_000);
  const b = await newOrg('deadlock-b', 1_000_000);
  // Without the store's retries, and counting the transactions the server aborts as deadlocked (the
  // group commit would then write each operation alone, so no request would see it).
  let conflicts = 0;
  const counting =
    (transact: Transactor): Transactor =>
    (work) =>
      transact(work).catch((error: unknown) => {
        if (isConflict(error)) conflicts++;
        throw error;
      });
  const [one, two] = nodes.map((node) => new Ledger(node.db, counting(kyselyTransactor(node.db)))) as [Ledger, Ledger];
  const settle = { usage: NO_USAGE, costMicros: 3, status: 200, durationMs: 1 };
  // Each round, node one holds on A and settles on B while node two holds on B and settles on A: the
  // holds' statement locks one organization, the money's the other, in opposite orders on the two.
  let running: [Hold, Hold] = [hold(b, 10), hold(a, 10)];
  t.same(await Promise.all([one.hold(running[0]), two.hold(running[1])]), [{ taken: true }, { taken: true }]);
  const failures: unknown[] = [];
  for (let round = 0; round < 30; round++) {
    const next: [Hold, Hold] = [hold(a, 10), hold(b, 10)];
    const results = await Promise.allSettled([
      one.hold(next[0]),
      one.settle(running[0], settle),
      two.hold(next[1]),
      two.settle(running[1], settle),
    ]);
    for (const result of results) if (result.status === 'rejected') failures.push(result.reason);
    running = [hold(b, 10), hold(a, 10)];
    await Promise.all([one.settle(next[0], settle), two.settle(next[1], settle)]);
    await Promise.all([one.hold(running[0]), two.hold(running[1])]);
  }
  await Promise.all([one.settle(running[0], settle), two.settle(running[1], settle)]);
  t.same(failures, [], 'no write failed');
  t.equal(conflicts, 0, 'no transaction was aborted as a deadlock');
  t.equal(await balanced(a), 0);
  t.equal(await balanced(b), 0);
});

t.test(
  "a starting node's sweep releases at once the holds of a node whose lease ran out, never a live node's",
  async (t) => {
    const org = await newOrg('leases', 100_000);
    const [, second, third] = nodes as [Store, Store, Store];
    // A node that died two minutes ago (kill -9): its row's heartbeat stopped then.
    const stopped = Date.now() - 120_000;
    const dead = { id: 'node_killed' };
    await first.db
      .insertInto('nodes')
      .values({ id: dead.id, host: 'gone', pid: 1, started_at: stopped, heartbeat_at: stopped })
      .execute();
    const live = await NodeLease.register(third.db, { leaseMs: 30_000 });
    t.teardown(() => live.close());
    const deadHolds = [hold(org, 1_000), hold(org, 2_000)];
    const liveHolds = [hold(org, 4_000)];
    const deadLedger = new Ledger(second.db, second.transact, dead.id);
    const liveLedger = new Ledger(third.db, third.transact, live.id);
    for (const h of deadHolds) t.same(await deadLedger.hold(h), { taken: true });
    for (const h of liveHolds) t.same(await liveLedger.hold(h), { taken: true });
    t.equal(await balanceOf(org), 100_000 - 7_000);
    const written = await first.db.selectFrom('usage').select(['id', 'node_id']).where('org_id', '=', org).execute();
    t.same(
      Object.fromEntries(written.map((row) => [row.id, row.node_id])),
      Object.fromEntries([...deadHolds.map((h) => [h.id, dead.id]), ...liveHolds.map((h) => [h.id, live.id])]),
      'each hold records its node',
    );

    // A node starts: its meter sweeps at once (young holds: orphan_hold_ms does not apply), then closes.
    const context = {
      config: loadConfig(undefined, {}).config,
      store: async () => first,
    } as unknown as PluginContext;
    const plugin = await meterPlugin.create({ node_lease_ms: 30_000, sweep_interval_ms: 60_000 }, context);
    await plugin.close?.();

    const states = await first.db.selectFrom('usage').select(['id', 'state']).where('org_id', '=', org).execute();
    t.same(
      Object.fromEntries(states.map((row) => [row.id, row.state])),
      Object.fromEntries([...deadHolds.map((h) => [h.id, 'released']), ...liveHolds.map((h) => [h.id, 'held'])]),
      "the dead node's holds are released, the live node's kept",
    );
    t.equal(await balanceOf(org), 100_000 - 4_000, 'the released holds are back on the balance');
    t.equal(await balanced(org), 0, 'balance = grants − settled − open holds');
    const left = await first.db.selectFrom('nodes').select('id').execute();
    t.same(
      left.map((row) => row.id),
      [live.id],
      'the dead node is forgotten, the closed one deleted its row, the live one stays',
    );
    // A hold of the dead node that was only slow settles after all: it pays, with no second refund.
    await deadLedger.settle(deadHolds[0]!, { usage: NO_USAGE, costMicros: 500, status: 200, durationMs: 1 });
    await liveLedger.settle(liveHolds[0]!, { usage: NO_USAGE, costMicros: 700, status: 200, durationMs: 1 });
    t.equal(await balanceOf(org), 100_000 - 1_200);
    t.equal(await balanced(org), 0);
  },
);
