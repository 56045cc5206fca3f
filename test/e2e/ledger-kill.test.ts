// The ledger survives a killed process: a gateway process under load (every dialect, streaming and
// not) is killed with SIGKILL; then every response a client received completely has its settled
// ledger row with the same usage, no settled row lacks a request, the holds left open belong to
// requests that did not complete, and the balance equals its start minus the settled costs and the
// open holds. Three times, on the same store: each process starts on the previous one's leftovers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSim, type RunningSim } from '../../sim/server.js';
import { openStore } from '../../store/store.js';
import { startGatewayProcess } from '../helpers/gateway-process.js';
import { checkSettled, meteredClient, type MeteredLoad, type SentRequest } from '../helpers/metered-answers.js';

const CLIENTS = 64;
const CREDITS_MICROS = 1_000_000_000;

let sim: RunningSim;
const dataDir = mkdtempSync(join(tmpdir(), 'ledger-kill-'));
const configFile = join(dataDir, 'gateway.yaml');
let key: string;
t.before(async () => {
  sim = await startSim({ itlMs: 1, outputTokens: 24 });
  writeFileSync(configFile, 'plugins:\n  - name: auth\n  - name: meter\n');
  const store = await openStore({ dataDir });
  await store.orgs.create('acme');
  await store.orgs.addCredits('acme', CREDITS_MICROS);
  key = (await store.keys.create('acme', 'load')).key;
  await store.close();
});
t.teardown(() => sim.close());

for (const round of [1, 2, 3]) {
  t.test(`round ${round}: a gateway killed under load loses no ledger row of a completed response`, async (t) => {
    const gateway = await startGatewayProcess({
      GATEWAY_CONFIG: configFile,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_UPSTREAM_URL: `${sim.url}/v1`,
      GATEWAY_LOG_LEVEL: 'silent',
    });
    gateway.child.stdout?.resume();
    const sent: SentRequest[] = [];
    const stop = { now: false };
    // Let the load run, then kill as a random completion past the 200th lands: the other clients are then
    // at any phase of their requests.
    const killAt = 200 + Math.floor(Math.random() * CLIENTS);
    let completions = 0;
    let loaded = (): void => {};
    const enough = new Promise<void>((resolve) => (loaded = resolve));
    const countCompletion = (): void => {
      if (++completions === killAt) loaded();
    };
    const load: MeteredLoad = {
      url: gateway.url,
      key,
      topic: 'the ledger',
      sent,
      stop,
      completed: countCompletion,
      onBreak: 'stop', // the process is gone
    };
    const clients = Array.from({ length: CLIENTS }, (_, index) => meteredClient(load, index));
    await Promise.race([enough, Promise.all(clients)]);
    const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGKILL');
    await exited;
    stop.now = true;
    await Promise.all(clients);

    const completed = sent.filter((record) => record.complete);
    t.ok(completed.length >= 200, `${completed.length} complete responses of ${sent.length} requests`);
    t.ok(sent.length > completed.length, 'the kill cut some requests short');

    const store = await openStore({ dataDir });
    try {
      const rows = await store.db.selectFrom('usage').selectAll().execute();
      const { lost: missing, differing } = checkSettled(completed, rows);
      t.same(missing, [], 'every complete response has its settled row');
      t.same(differing, [], 'with the usage the response reported');

      // Rows of this round: those of requests sent now, and those whose response never got its headers to the client.
      const known = new Set(sent.map((record) => record.id).filter((id) => id !== undefined));
      const completedIds = new Set(completed.map((record) => record.id));
      const headerless = sent.filter((record) => record.id === undefined).length;
      const earlier = round === 1 ? new Set<string>() : new Set(previousRows);
      const thisRound = rows.filter((row) => !earlier.has(row.id));
      const settledUnknown = thisRound.filter((row) => row.state === 'settled' && !known.has(row.id));
      t.ok(
        settledUnknown.length <= headerless,
        `settled rows without a request seen by a client (${settledUnknown.length}) are at most the requests whose headers never arrived (${headerless})`,
      );
      t.ok(
        thisRound.filter((row) => row.state === 'settled').length <= sent.length,
        'no more settled rows than requests',
      );
      const heldCompleted = thisRound.filter((row) => row.state === 'held' && completedIds.has(row.id));
      t.same(
        heldCompleted.map((row) => row.id),
        [],
        'no open hold belongs to a completed request',
      );

      const org = await store.orgs.get('acme');
      const settledCost = rows
        .filter((row) => row.state === 'settled')
        .reduce((sum, row) => sum + Number(row.cost_micros), 0);
      const openHolds = rows
        .filter((row) => row.state === 'held')
        .reduce((sum, row) => sum + Number(row.hold_micros), 0);
      t.equal(org.spentMicros, settledCost, 'lifetime spend is the sum of the settled costs');
      t.equal(
        CREDITS_MICROS - org.balanceMicros,
        settledCost + openHolds,
        'the balance moved by the settled costs and the open holds, nothing else',
      );
      previousRows = rows.map((row) => row.id);
    } finally {
      await store.close();
    }
  });
}

let previousRows: string[] = [];
