// Does a running batch slow live traffic down? (issue #29: "a live request never waits behind a batch line").
// One gateway process (the default chain: auth, ratelimit, meter, …) in front of the sim, whose answers take
// time like a model's (BENCH_TTFT_MS before the first token, BENCH_ITL_MS between tokens); the gateway has
// BENCH_CONNECTIONS upstream connections. A live load of BENCH_LIVE_CLIENTS clients, each sending one chat
// request after another for BENCH_SECONDS, runs twice in the same run: alone (the baseline), then while a batch
// of BENCH_BATCH_LINES lines runs. Prints each phase's live latency (p50, p95, p99, max) and how many batch
// lines ran during the second. `npm run bench:batch`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startSim } from '../sim/server.js';
import { openStore } from '../store/store.js';
import { freePort, startServer } from './processes.js';
import { quantile } from './stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const LIVE_CLIENTS = Number(process.env.BENCH_LIVE_CLIENTS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const BATCH_LINES = Number(process.env.BENCH_BATCH_LINES ?? 5000);
const BATCH_CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 4);
const TTFT_MS = Number(process.env.BENCH_TTFT_MS ?? 30);
const ITL_MS = Number(process.env.BENCH_ITL_MS ?? 2);

const sim = await startSim({ ttftMs: TTFT_MS, itlMs: ITL_MS, outputTokens: 32 });
const dataDir = mkdtempSync(join(tmpdir(), 'bench-batch-'));
const configFile = join(dataDir, 'gateway.yaml');
writeFileSync(
  configFile,
  `upstream:\n  connections: ${CONNECTIONS}\nbatch:\n  concurrency: ${BATCH_CONCURRENCY}\n  poll_ms: 100\nlimits:\n  tiers:\n    - { name: Bench, from_spend: 0, requests_per_minute: 1000000000, input_tokens_per_minute: 1000000000, output_tokens_per_minute: 1000000000 }\n`,
);
const store = await openStore({ dataDir });
const org = await store.orgs.create('bench');
await store.orgs.addCredits(org.id, 1_000_000_000_000);
const { key } = await store.keys.create(org.id, 'bench');
const port = await freePort();
const gateway = await startServer({
  name: 'gateway',
  args: [fileURLToPath(new URL('../bin/gateway.js', import.meta.url)), 'start'],
  env: {
    GATEWAY_CONFIG: configFile,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_UPSTREAM_URL: `${sim.url}/v1`,
    GATEWAY_LOG_LEVEL: 'warn',
    GATEWAY_PORT: String(port),
    GATEWAY_WORKERS: '1',
  },
  port,
});
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const body = JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'Say hi' }], max_tokens: 32 });

/** LIVE_CLIENTS clients, one request after another, for SECONDS: each request's latency in ms. */
async function liveLoad(): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: LIVE_CLIENTS }, async () => {
      while (performance.now() < until) {
        const sent = performance.now();
        const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body });
        await response.text();
        if (response.status !== 200) throw new Error(`a live request got ${response.status}`);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  return latencies;
}

const lineCount = async (batchId: string): Promise<number> => (await store.batches.counts(batchId)).succeeded;

function report(phase: string, latencies: number[]): void {
  const at = (q: number): string => quantile(latencies, q).toFixed(1).padStart(8);
  console.log(
    `${phase.padEnd(26)} ${String(latencies.length).padStart(8)} ${at(0.5)} ${at(0.95)} ${at(0.99)} ${at(1)}`,
  );
}

console.log(
  `live clients ${LIVE_CLIENTS}, upstream connections ${CONNECTIONS}, batch concurrency ${BATCH_CONCURRENCY}, sim ttft ${TTFT_MS} ms + ${ITL_MS} ms/token × 32, ${SECONDS} s per phase`,
);
console.log(
  `${'phase'.padEnd(26)} ${'requests'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}`,
);
await liveLoad(); // warm-up
report('live alone (baseline)', await liveLoad());

const lines = Array.from({ length: BATCH_LINES }, (_, i) =>
  JSON.stringify({
    custom_id: `l${i}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: JSON.parse(body) as unknown,
  }),
);
const form = new FormData();
form.append('purpose', 'batch');
form.append('file', new Blob([`${lines.join('\n')}\n`]), 'batch.jsonl');
const auth = { authorization: `Bearer ${key}` };
const file = (await (await fetch(`${gateway.url}/v1/files`, { method: 'POST', headers: auth, body: form })).json()) as {
  id: string;
};
const batch = (await (
  await fetch(`${gateway.url}/v1/batches`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
  })
).json()) as { id: string };
// The batch gets going before the live load starts.
while ((await lineCount(batch.id)) < BATCH_CONCURRENCY) await sleep(50);
const before = await lineCount(batch.id);
const started = performance.now();
report('live with a batch running', await liveLoad());
const during = (await lineCount(batch.id)) - before;
console.log(
  `batch lines run during the live load: ${during} (${((during / (performance.now() - started)) * 1000).toFixed(1)}/s)`,
);
const idleStart = await lineCount(batch.id);
await sleep(SECONDS * 1000);
console.log(`batch lines run in ${SECONDS} s with no live load: ${(await lineCount(batch.id)) - idleStart}`);

await fetch(`${gateway.url}/v1/batches/${batch.id}/cancel`, { method: 'POST', headers });
await gateway.stop();
await store.close();
await sim.close();
