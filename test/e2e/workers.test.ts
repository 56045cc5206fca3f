// A node of several workers (server.workers: 2) on the embedded SQLite store, no Redis: what the node
// counts is the node's, whichever worker a connection lands on (node:cluster hands connections out in
// turn, so requests on new connections alternate between the workers); a dead worker is replaced and
// loses no ledger row; a drain drains every worker; the metrics sum them all.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startSim, type RunningSim } from '../../sim/server.js';
import { openStore } from '../../store/store.js';
import { freePort } from '../helpers/free-port.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { checkSettled, meteredClient, type MeteredLoad, type SentRequest } from '../helpers/metered-answers.js';
import { scrape, sumOf } from '../helpers/prometheus-text.js';

const CREDITS_MICROS = 1_000_000_000;
const ADMIN_TOKEN = 'workers-test-admin-token';
const REQUESTS_PER_MINUTE = 6;

let sim: RunningSim;
t.before(async () => {
  sim = await startSim({ itlMs: 1, outputTokens: 12 });
});
t.teardown(() => sim.close());

interface Node {
  gateway: GatewayProcess;
  dataDir: string;
  key: string;
  adminUrl: string;
  metricsUrl: string;
}

/** A two-worker node in front of `upstream` (the quick sim by default), with one organization and its key. */
async function startNode(t: Test, yaml: string, upstream: RunningSim = sim): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'workers-'));
  const configFile = join(dataDir, 'gateway.yaml');
  const adminPort = await freePort();
  const metricsPort = await freePort();
  writeFileSync(configFile, `admin:\n  port: ${adminPort}\n${yaml}`);
  const store = await openStore({ dataDir });
  await store.orgs.create('acme');
  await store.orgs.addCredits('acme', CREDITS_MICROS);
  const { key } = await store.keys.create('acme', 'load');
  await store.close();
  const gateway = await startGatewayProcess({
    GATEWAY_WORKERS: '2',
    GATEWAY_CONFIG: configFile,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_UPSTREAM_URL: `${upstream.url}/v1`,
    GATEWAY_LOG_LEVEL: 'silent',
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEWAY_METRICS_PORT: String(metricsPort),
    // A stop at the end of a test cuts what a killed worker's connections left after this long.
    GATEWAY_DRAIN_TIMEOUT_MS: '5000',
  });
  gateway.child.stdout?.resume();
  t.teardown(() => gateway.stop());
  return {
    gateway,
    dataDir,
    key,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
  };
}

const SHORT_CHAT = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 };

/**
 * A chat request on a connection of its own (so node:cluster hands it to the next worker): its status and
 * body; `onFirstBytes` is called when the answer's first bytes arrive.
 */
function chatOnNewConnection(
  url: string,
  key: string,
  request: object = SHORT_CHAT,
  onFirstBytes: () => void = () => {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/v1/chat/completions`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          onFirstBytes();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(request));
  });
}

/** The process part of a completion id (`chatcmpl-<process><counter>`): two of them show two workers answered. */
function processOf(body: string): string {
  return (JSON.parse(body) as { id: string }).id.slice('chatcmpl-'.length, 'chatcmpl-'.length + 16);
}

/** The worker processes of the node: the primary's children. */
function workerPids(gateway: GatewayProcess): number[] {
  const pid = gateway.child.pid!;
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

const TIER = `limits:\n  tiers:\n    - { name: Small, from_spend: 0, requests_per_minute: ${REQUESTS_PER_MINUTE}, input_tokens_per_minute: 1000000, output_tokens_per_minute: 1000000 }\n`;

t.test("the rate-limit window is the node's: two workers together admit the tier's requests, no more", async (t) => {
  const node = await startNode(t, `plugins:\n  - name: auth\n  - name: ratelimit\n${TIER}`);
  const answers = [];
  for (let n = 0; n < REQUESTS_PER_MINUTE + 4; n++) answers.push(await chatOnNewConnection(node.gateway.url, node.key));
  const admitted = answers.filter((answer) => answer.status === 200);
  t.equal(admitted.length, REQUESTS_PER_MINUTE, 'the tier admits its requests per minute across the workers');
  t.same(
    answers.slice(REQUESTS_PER_MINUTE).map((answer) => answer.status),
    [429, 429, 429, 429],
    'and refuses the rest on both workers',
  );
  t.equal(new Set(admitted.map((answer) => processOf(answer.body))).size, 2, 'both workers answered');
});

t.test('a key revoked through one worker is refused at once by every worker', async (t) => {
  const node = await startNode(t, `plugins:\n  - name: auth\n`);
  // Each worker has the key in its cache.
  const before = [
    await chatOnNewConnection(node.gateway.url, node.key),
    await chatOnNewConnection(node.gateway.url, node.key),
  ];
  t.same(
    before.map((answer) => answer.status),
    [200, 200],
  );
  t.equal(new Set(before.map((answer) => processOf(answer.body))).size, 2, 'both workers answered');
  const store = await openStore({ dataDir: node.dataDir });
  const keyId = (await store.keys.list('acme'))[0]!.id;
  await store.close();
  const revoked = await fetch(`${node.adminUrl}/admin/v1/keys/${keyId}/revoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  t.equal(revoked.status, 200, 'revoked through the admin API (one worker)');
  const after = [];
  for (let n = 0; n < 4; n++) after.push((await chatOnNewConnection(node.gateway.url, node.key)).status);
  t.same(after, [401, 401, 401, 401], 'every worker refuses it');
});

t.test('a worker killed under load is replaced, and the ledger loses no row of a completed response', async (t) => {
  const node = await startNode(t, `plugins:\n  - name: auth\n  - name: meter\n`);
  t.equal(workerPids(node.gateway).length, 2, 'two workers');
  const sent: SentRequest[] = [];
  const stop = { now: false };
  let completions = 0;
  const reached = new Map<number, () => void>();
  const completionCount = (count: number): Promise<void> =>
    new Promise((resolve) => reached.set(completions + count, resolve));
  const load: MeteredLoad = {
    url: node.gateway.url,
    key: node.key,
    topic: 'workers',
    sent,
    stop,
    completed: () => reached.get(++completions)?.(),
    onBreak: 'next',
    // A connection the kill leaves without an answer is given up, as a client would, not waited on for minutes.
    requestTimeoutMs: 10_000,
  };
  const first = completionCount(100);
  const clients = Array.from({ length: 16 }, (_, index) => meteredClient(load, index));
  await first;
  const [victim] = workerPids(node.gateway);
  process.kill(victim!, 'SIGKILL');
  // The load goes on through the other worker, then through the one that replaced the dead.
  let replaced: number[] = [];
  while (replaced.length < 2 || replaced.includes(victim!)) {
    await completionCount(20);
    replaced = workerPids(node.gateway);
  }
  await completionCount(50);
  stop.now = true;
  await Promise.all(clients);
  t.notOk(replaced.includes(victim!), 'the dead worker is gone');
  t.equal(replaced.length, 2, 'another worker took its place');

  const completed = sent.filter((record) => record.complete);
  const store = await openStore({ dataDir: node.dataDir });
  try {
    const rows = await store.db.selectFrom('usage').selectAll().execute();
    const { lost, differing } = checkSettled(completed, rows);
    t.same(lost, [], 'every complete response has its settled row');
    t.same(differing, [], 'with the usage the response reported');
    const org = await store.orgs.get('acme');
    const settled = rows.filter((row) => row.state === 'settled');
    const settledCost = settled.reduce((sum, row) => sum + Number(row.cost_micros), 0);
    const openHolds = rows.filter((row) => row.state === 'held').reduce((sum, row) => sum + Number(row.hold_micros), 0);
    t.equal(org.spentMicros, settledCost, 'lifetime spend is the sum of the settled costs of both workers');
    t.equal(
      CREDITS_MICROS - org.balanceMicros,
      settledCost + openHolds,
      'the balance moved by those and the open holds',
    );
    t.ok(settled.length >= completed.length, `${settled.length} settled rows for ${completed.length} complete answers`);
  } finally {
    await store.close();
  }
});

t.test("a drain lets every worker's streams end, then the node exits 0; the metrics sum every worker", async (t) => {
  // Streams of 40 tokens 25 ms apart: a second long, under way when the signal comes.
  const slowSim = await startSim({ itlMs: 25, outputTokens: 40 });
  t.teardown(() => slowSim.close());
  const node = await startNode(t, `plugins:\n  - name: auth\n`, slowSim);
  for (let n = 0; n < 4; n++) await chatOnNewConnection(node.gateway.url, node.key);
  const samples = await scrape(node.metricsUrl);
  t.equal(sumOf(samples, 'gateway_requests_total', { status: '200' }), 4, "the node's requests, both workers summed");

  // One slow stream on each worker (new connections alternate), then SIGTERM to the primary.
  const streams = [0, 1].map(() => slowStream(node.gateway.url, node.key));
  await Promise.all(streams.map((stream) => stream.started));
  const exited = new Promise<number | null>((resolve) => node.gateway.child.once('exit', (code) => resolve(code)));
  node.gateway.child.kill('SIGTERM');
  const bodies = await Promise.all(streams.map((stream) => stream.done));
  for (const body of bodies) t.match(body, /"finish_reason":"(stop|length)"/, 'the stream ran to its end');
  t.equal(await exited, 0, 'the node exited 0 once every worker drained');
});

/** A streamed chat request on a connection of its own; `started` once its first bytes arrived. */
function slowStream(url: string, key: string): { started: Promise<void>; done: Promise<string> } {
  let started: () => void = () => {};
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const request = {
    model: 'qwen3-8b',
    stream: true,
    messages: [{ role: 'user', content: 'Tell a long story.' }],
    max_tokens: 400,
  };
  const done = chatOnNewConnection(url, key, request, started).then((answer) => answer.body);
  return { started: startedPromise, done };
}
