// kill -9 of one node of a fleet under load: clients call through nginx (every dialect, streamed and
// not) while one of three nodes is killed with SIGKILL, its streams in flight. Every response a client
// received completely has its settled ledger row with the usage it reported; nginx sends the rest of
// the load to the two nodes left; the holds the dead node left open are released by the sweep of the
// others, and then balance = credits added − settled costs, with no hold open. Each scenario runs once
// per kind of shared store and Redis (FLEET_BACKENDS).
import t, { type Test } from 'tap';
import { startSim, type RunningSim } from '../../sim/server.js';
import { FLEET_BACKENDS } from '../helpers/fleet-backends.js';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { checkSettled, meteredClient, type MeteredLoad, type SentRequest } from '../helpers/metered-answers.js';

const CLIENTS = 48;
const CREDITS = '1000';
// The surviving nodes release the holds of a node whose lease has not been renewed for node_lease_ms,
// looking every sweep_interval_ms. orphan_hold_ms stays at its hour, so only the lease can release them.
const LEASE_MS = 1500;
const CONFIG = `plugins:
  - name: auth
  - name: meter
    options: { node_lease_ms: ${LEASE_MS}, sweep_interval_ms: 200 }
`;

let sim: RunningSim;
t.before(async () => {
  sim = await startSim({ itlMs: 5, outputTokens: 24 });
});
t.teardown(() => sim.close());

/** Counts completions and resolves `at(n)` once n have completed. */
function completions(): { count(): void; at(n: number): Promise<void>; total(): number } {
  let total = 0;
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  return {
    count() {
      total++;
      for (const waiter of waiting.filter((w) => w.n <= total)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    at(n) {
      return n <= total ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }));
    },
    total: () => total,
  };
}

async function killUnderLoad(t: Test, fleet: Fleet): Promise<void> {
  const org = fleet.createOrg('loaded', CREDITS);
  const sent: SentRequest[] = [];
  const stop = { now: false };
  const done = completions();
  const load: MeteredLoad = {
    url: fleet.front.url,
    key: org.key,
    topic: 'fleets',
    sent,
    stop,
    completed: done.count,
    onBreak: 'next', // nginx cut the connection: the node behind it died mid-answer
  };
  const clients = Array.from({ length: CLIENTS }, (_, i) => meteredClient(load, i));

  // Kill as a random completion past the 150th lands: the other requests are then at any phase.
  const killAt = 150 + Math.floor(Math.random() * CLIENTS);
  await done.at(killAt);
  const [victim] = fleet.nodes;
  victim!.child.kill('SIGKILL');
  await victim!.exit;
  const killedAt = performance.now();
  const sentBeforeKill = sent.length;
  // The fleet serves on: 100 more complete answers through nginx, from the two nodes left.
  await done.at(done.total() + 100);
  stop.now = true;
  await Promise.all(clients);

  const completed = sent.filter((record) => record.complete);
  const cutStreams = sent.filter((record) => record.stream && record.status === 200 && !record.complete);
  const failedAfterKill = sent.slice(sentBeforeKill).filter((record) => !record.complete);
  t.comment(
    `${sent.length} requests, ${completed.length} complete; the kill cut ${cutStreams.length} streams in flight; ` +
      `requests sent after the kill that did not complete: ${failedAfterKill.length}`,
  );
  t.ok(cutStreams.length > 0, 'the killed node had streams in flight');
  t.same(
    failedAfterKill.map((record) => `${record.label} ${record.status ?? 'no answer'}`),
    [],
    'after the kill, nginx sends every request to a node that answers it',
  );

  const store = await fleet.store();
  const rows = await store.db.selectFrom('usage').selectAll().where('org_id', '=', org.orgId).execute();
  const { lost, differing } = checkSettled(completed, rows);
  t.same(lost, [], 'every complete answer has its settled ledger row: none lost');
  t.same(differing, [], 'with the usage the answer reported');
  const headerless = sent.filter((record) => record.id === undefined).length;
  const known = new Set(sent.map((record) => record.id));
  const unknownSettled = rows.filter((row) => row.state === 'settled' && !known.has(row.id)).length;
  t.ok(
    unknownSettled <= headerless,
    `settled rows no client saw (${unknownSettled}) are at most the requests whose head never arrived (${headerless})`,
  );

  // The sweep: the holds the dead node left are released by the others, once its lease has run out.
  const held = (): Promise<number> =>
    store.db
      .selectFrom('usage')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', org.orgId)
      .where('state', '=', 'held')
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  const openWhenStopped = rows.filter((row) => row.state === 'held').length;
  while ((await held()) > 0 && performance.now() - killedAt < 20_000)
    await new Promise((resolve) => setTimeout(resolve, 50));
  t.comment(
    `the sweep released the dead node's open holds (${openWhenStopped} open when the load stopped) ` +
      `${Math.round(performance.now() - killedAt)} ms after the kill (lease ${LEASE_MS} ms)`,
  );
  t.equal(await held(), 0, 'after the sweep no hold is open');

  const after = await store.db.selectFrom('usage').selectAll().where('org_id', '=', org.orgId).execute();
  const completedIds = new Set(completed.map((record) => record.id));
  t.same(
    after.filter((row) => row.state === 'released' && completedIds.has(row.id)).map((row) => row.id),
    [],
    'no complete answer had its hold released instead of settled',
  );
  const settled = after.filter((row) => row.state === 'settled').reduce((sum, row) => sum + Number(row.cost_micros), 0);
  const { balanceMicros } = await store.orgs.get(org.orgId);
  t.equal(
    balanceMicros,
    Number(CREDITS) * 1_000_000 - settled,
    'balance = credits added − settled costs (open holds: 0)',
  );
  t.match(
    fleet.cli('ledger', 'check'),
    new RegExp(`${org.orgId}\\t.*\\theld 0 credits\\tdiscrepancy 0 credits`),
    '`gateway ledger check` agrees: no hold open, no discrepancy',
  );
  t.comment(
    `final balance ${balanceMicros} micro-credits = ${CREDITS} credits − ${settled} settled; ` +
      `${after.filter((row) => row.state === 'released').length} holds released`,
  );
}

for (const backends of FLEET_BACKENDS) {
  t.test(backends.label, async (t) => {
    const fleet = await startFleet(t, { backends, upstreamUrl: `${sim.url}/v1`, config: CONFIG });
    await t.test(
      'kill -9 of a node under load loses no settled ledger row, and the sweep leaves balance = added − settled',
      (t) => killUnderLoad(t, fleet),
    );
  });
}
