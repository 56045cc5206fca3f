// Which queue should hand out a fleet's batch lines on PostgreSQL (issue #29: pg-boss or graphile-worker, chosen
// by measurement)? On one PostgreSQL server this bench runs the same work through three queues, in one run:
// - `store rows`: the gateway's own claims on batch_lines (StoreLineQueue, what SQLite's single node uses);
// - `pg-boss`: PgBossLineQueue, pg-boss 10 on the store's connections, claims in the store as the gateway runs it;
// - `graphile-worker`: graphile-worker 0.16 on its own pool, a job per line and a task that does nothing (its
//   best case: no claim in the store, no result written).
// Each queue gets BENCH_QUEUE_LINES lines as one batch, and two nodes (two queue instances in this process),
// each running BENCH_QUEUE_CONCURRENCY lines at a time whose work is nothing, take them to the end. Printed per
// queue: lines per second, this process's CPU and PostgreSQL's CPU per line. Then how long the lines a killed
// node held wait before the other node takes them up: a node claims BENCH_QUEUE_CONCURRENCY lines and stops
// (no renewal, no result); the time until the other node has run them. `npm run bench:queue`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, makeWorkerUtils, run, type Runner } from 'graphile-worker';
import { sql } from 'kysely';
import pino from 'pino';
import { StoreLineQueue, type ClaimScope, type LineQueue } from '../batch/line-queue.js';
import { newBatch } from '../batch/new-batch.js';
import { PgBossLineQueue } from '../batch/pg-boss-queue.js';
import { openStore, type Store } from '../store/store.js';
import { findPostgres, startPostgres } from './postgres.js';
import { stopAll } from './processes.js';

const LINES = Number(process.env.BENCH_QUEUE_LINES ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_QUEUE_CONCURRENCY ?? 4);
const LEASE_MS = 1000;
const log = pino({ level: 'warn' });

const bin = findPostgres();
if (bin === undefined) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql/<version>/bin)');
const postgres = await startPostgres(bin);
let databases = 0;

/** A store on a new database of the server. */
async function freshStore(): Promise<{ store: Store; url: string }> {
  const name = `queue_${++databases}`;
  const admin = await openStore({
    dataDir: mkdtempSync(join(tmpdir(), 'bench-queue-')),
    postgres: { url: postgres.url, poolSize: 2, connectTimeoutMs: 10_000 },
  });
  await sql.raw(`create database ${name}`).execute(admin.db);
  await admin.close();
  const url = postgres.url.replace(/\/postgres$/, `/${name}`);
  const store = await openStore({
    dataDir: mkdtempSync(join(tmpdir(), 'bench-queue-')),
    postgres: { url, poolSize: 10, connectTimeoutMs: 10_000 },
  });
  return { store, url };
}

/** A batch of LINES lines in the store (its org and key made), through `queue`. */
async function makeBatch(store: Store, queue: LineQueue, id: string, lines: number): Promise<string> {
  const org = await store.orgs.create(`org-${id}`);
  const { record } = await store.keys.create(org.id, 'k');
  const batch = newBatch(
    {
      id,
      orgId: org.id,
      keyId: record.id,
      api: 'openai',
      endpoint: '/v1/chat/completions',
      inputFileId: 'file_bench',
      inputObject: 'bench',
      metadata: null,
    },
    Date.now(),
  );
  await queue.create(
    batch,
    Array.from({ length: lines }, (_, i) => ({ customId: `l${i}`, offset: i, length: 1 })),
  );
  return id;
}

/** One node: claims up to CONCURRENCY lines at a time, runs each (nothing), records it, until `done()`. */
async function node(queue: LineQueue, scope: ClaimScope, done: () => boolean, ran: () => void): Promise<void> {
  while (!done()) {
    const now = Date.now();
    const lines = await queue.claim(CONCURRENCY, scope, now, now + LEASE_MS);
    if (lines.length === 0) {
      await sleep(5);
      continue;
    }
    await Promise.all(
      lines.map(async (line) => {
        await queue.finish(line, { state: 'succeeded', statusCode: 200, result: '{}' }, Date.now());
        ran();
      }),
    );
  }
}

interface Measured {
  queue: string;
  linesPerSecond: number;
  benchCpuUsPerLine: number;
  postgresCpuUsPerLine: number;
  takenUpAfterMs: number | string;
}

/** The throughput of a LineQueue (two nodes), then how long a killed node's lines wait. */
async function measureLineQueue(
  name: string,
  open: (store: Store, owner: string) => Promise<LineQueue>,
): Promise<Measured> {
  const { store } = await freshStore();
  const [a, b] = [await open(store, 'node_a'), await open(store, 'node_b')];
  const batchId = await makeBatch(store, a, `batch_${name.replace(/\W/g, '')}_1`, LINES);
  const scope: ClaimScope = { runnable: new Set([batchId]), pausedUntil: new Map() };
  let ran = 0;
  const cpu = process.cpuUsage();
  const pgCpu = postgres.process.cpuMs();
  const started = performance.now();
  await Promise.all(
    [a, b].map((queue) =>
      node(
        queue,
        scope,
        () => ran >= LINES,
        () => ran++,
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const pgUsed = postgres.process.cpuMs() - pgCpu;

  // A killed node: node A claims lines and never renews nor finishes them; node B runs the batch to its end.
  const killedId = await makeBatch(store, a, `batch_${name.replace(/\W/g, '')}_2`, CONCURRENCY);
  const killedScope: ClaimScope = { runnable: new Set([killedId]), pausedUntil: new Map() };
  const now = Date.now();
  await a.claim(CONCURRENCY, killedScope, now, now + LEASE_MS);
  const killedAt = performance.now();
  let takenUp = 0;
  await node(
    b,
    killedScope,
    () => takenUp >= CONCURRENCY,
    () => takenUp++,
  );
  const takenUpAfterMs = Math.round(performance.now() - killedAt);

  await a.close();
  await b.close();
  await store.close();
  return {
    queue: name,
    linesPerSecond: LINES / seconds,
    benchCpuUsPerLine: (used.user + used.system) / LINES,
    postgresCpuUsPerLine: (pgUsed * 1000) / LINES,
    takenUpAfterMs,
  };
}

/** graphile-worker's throughput: LINES jobs added in one statement, two runners, a task that does nothing. */
async function measureGraphileWorker(): Promise<Measured> {
  const { store, url } = await freshStore();
  await store.close();
  const utils = await makeWorkerUtils({ connectionString: url, logger: quietLogger() });
  await utils.migrate();
  let ran = 0;
  let allRan: () => void = () => {};
  const finished = new Promise<void>((resolve) => (allRan = resolve));
  const taskList = {
    line: async () => {
      if (++ran === LINES) allRan();
    },
  };
  const cpu = process.cpuUsage();
  const pgCpu = postgres.process.cpuMs();
  const started = performance.now();
  await utils.withPgClient((client) =>
    client.query(
      `select graphile_worker.add_jobs(array(select row('line', json_build_object('line', n), null, null, null, null, null, null)::graphile_worker.job_spec from generate_series(1, $1) n))`,
      [LINES],
    ),
  );
  const runners: Runner[] = [];
  for (let i = 0; i < 2; i++)
    runners.push(
      await run({
        connectionString: url,
        concurrency: CONCURRENCY,
        taskList,
        noHandleSignals: true,
        pollInterval: 5,
        logger: quietLogger(),
      }),
    );
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const pgUsed = postgres.process.cpuMs() - pgCpu;
  for (const runner of runners) await runner.stop();
  await utils.release();
  return {
    queue: 'graphile-worker',
    linesPerSecond: LINES / seconds,
    benchCpuUsPerLine: (used.user + used.system) / LINES,
    postgresCpuUsPerLine: (pgUsed * 1000) / LINES,
    // Its lock on a job a dead worker held is reset after a fixed 4 hours (its resetLockedAt / get_job SQL).
    takenUpAfterMs: '14,400,000 (fixed: 4 h)',
  };
}

/** graphile-worker's log, silent: the bench's output is its table. */
function quietLogger(): Logger {
  return new Logger(() => () => {});
}

const results: Measured[] = [];
results.push(
  await measureLineQueue('store rows', async (store, owner) => new StoreLineQueue(store, owner)),
  await measureLineQueue('pg-boss', (store, owner) => PgBossLineQueue.start(store, owner, { leaseMs: LEASE_MS }, log)),
  await measureGraphileWorker(),
);
console.log(
  `${LINES} lines, 2 nodes × ${CONCURRENCY} at a time, lines that do nothing; lease ${LEASE_MS} ms (pg-boss: job expiry 2 leases)`,
);
console.log(
  `${'queue'.padEnd(16)} ${'lines/s'.padStart(8)} ${'bench cpu us/line'.padStart(18)} ${'postgres cpu us/line'.padStart(21)}  killed node's lines taken up after (ms)`,
);
for (const row of results)
  console.log(
    `${row.queue.padEnd(16)} ${row.linesPerSecond.toFixed(0).padStart(8)} ${row.benchCpuUsPerLine.toFixed(0).padStart(18)} ${row.postgresCpuUsPerLine.toFixed(0).padStart(21)}  ${String(row.takenUpAfterMs)}`,
  );
await stopAll();
