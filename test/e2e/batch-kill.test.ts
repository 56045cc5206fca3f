// A node killed in the middle of a batch (issue #29): its lines in flight are held at the upstream when it is
// killed with SIGKILL; another node on the same store (SQLite: the node started again; PostgreSQL: the other node
// of a fleet of two, running lines of the batch beside it through pg-boss) takes them up once their claims run out. Every line then has exactly one result and at most one
// settled ledger row, and the balance is what was added less what was settled and what is still held.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { startSim } from '../../sim/server.js';
import { batchDb } from '../../store/batch-schema.js';
import { openStore } from '../../store/store.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { freshStoreOptions, type TestDialect } from '../helpers/test-store.js';
import { startUpstreamGate } from '../helpers/upstream-gate.js';

const LINES = 10;
const CREDITS_MICROS = 10_000_000;
const CONFIG = `batch:
  concurrency: 3
  lease_ms: 1000
  poll_ms: 50
plugins:
  - name: auth
  - name: meter
    options: { node_lease_ms: 500, sweep_interval_ms: 100 }
`;

/** Settles when the process logs that the batch ended. */
function batchEnded(gateway: GatewayProcess, batchId: string): Promise<void> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: gateway.child.stdout! });
    lines.on('line', (line) => {
      if (line.includes('"batch ended"') && line.includes(batchId)) {
        lines.close();
        resolve();
      }
    });
  });
}

for (const dialect of ['sqlite', 'postgres'] as TestDialect[]) {
  t.test(`${dialect}: a node killed mid-batch loses no line and bills none twice`, async (t) => {
    const sim = await startSim({});
    const gate = await startUpstreamGate(sim.url);
    t.teardown(async () => {
      await gate.close();
      await sim.close();
    });
    const options = await freshStoreOptions(dialect);
    const configFile = join(options.dataDir, 'gateway.yaml');
    writeFileSync(configFile, CONFIG);
    const env = {
      GATEWAY_CONFIG: configFile,
      GATEWAY_DATA_DIR: options.dataDir,
      ...(options.postgres === undefined ? {} : { GATEWAY_DATABASE_URL: options.postgres.url }),
      GATEWAY_UPSTREAM_URL: `${gate.url}/v1`,
      GATEWAY_LOG_LEVEL: 'info',
    };
    const store = await openStore(options);
    t.teardown(() => store.close());
    const org = await store.orgs.create('acme');
    await store.orgs.addCredits(org.id, CREDITS_MICROS);
    const { key } = await store.keys.create(org.id, 'batch');

    const first = await startGatewayProcess(env);
    const client = new OpenAI({ apiKey: key, baseURL: `${first.url}/v1`, maxRetries: 0 });
    const lines = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({
        custom_id: `line-${i}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'qwen3-8b', messages: [{ role: 'user', content: `Say ${i}` }], max_tokens: 8 },
      }),
    );
    const file = await client.files.create({
      file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'batch.jsonl'),
      purpose: 'batch',
    });
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    // On PostgreSQL a second node of the fleet runs beside the first: each has three lines under way upstream,
    // held there. The first node is killed with its lines in flight.
    const fleet = dialect === 'postgres';
    const beside = fleet ? await startGatewayProcess(env) : undefined;
    if (beside !== undefined) t.teardown(() => beside.stop());
    const besideEnded = beside === undefined ? undefined : batchEnded(beside, batch.id);
    await gate.arrived(fleet ? 6 : 3);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    gate.open();

    if (besideEnded !== undefined) await besideEnded;
    else {
      const second = await startGatewayProcess(env);
      t.teardown(() => second.stop());
      await batchEnded(second, batch.id);
    }

    const results = await store.batchLines.results(batch.id, 0, LINES + 1);
    t.equal(results.length, LINES, 'every line has its result');
    t.same(
      results.filter((line) => line.state !== 'succeeded').map((line) => line.customId),
      [],
      'every line succeeded',
    );
    const rows = await batchDb(store.db)
      .selectFrom('usage')
      .select(['id', 'state', 'cost_micros', 'hold_micros'])
      .where('batch_id', '=', batch.id)
      .execute();
    const settledPerLine = new Map<string, number>();
    for (const row of rows.filter((row) => row.state === 'settled')) {
      const line = row.id.slice(0, row.id.lastIndexOf('.'));
      settledPerLine.set(line, (settledPerLine.get(line) ?? 0) + 1);
    }
    t.equal(settledPerLine.size, LINES, 'every line was billed');
    t.same(
      [...settledPerLine].filter(([, count]) => count > 1),
      [],
      'no line was billed twice',
    );
    t.ok(
      rows.some((row) => row.state !== 'settled'),
      'the killed node left holds of its lines in flight (released, or still to be)',
    );
    const settled = rows
      .filter((row) => row.state === 'settled')
      .reduce((sum, row) => sum + Number(row.cost_micros), 0);
    const held = rows.filter((row) => row.state === 'held').reduce((sum, row) => sum + Number(row.hold_micros), 0);
    const balance = (await store.orgs.get(org.id)).balanceMicros;
    t.equal(balance, CREDITS_MICROS - settled - held, 'balance = added − settled − still held');
  });
}
