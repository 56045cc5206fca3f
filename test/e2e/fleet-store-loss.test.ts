// PostgreSQL lost for a while under a fleet (docs/deployment.md, "What happens when a part is lost"):
// two nodes on one PostgreSQL and one Redis serve; PostgreSQL stops (as a crash: pg_ctl -m immediate).
// Every request then fails fast with a 503 `store_unavailable` in its dialect's error shape (it was a
// 500 `internal_error`), /ready says 503 with the store unreachable, and the node processes stay up; a
// stream in flight when the database died gets an error event instead of its end, and its hold is
// released by the sweep once the database is back. PostgreSQL starts again (same data, same port) and,
// without a restart, every node is ready and serves 200s within a bounded time; the books then balance.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { startSim, type RunningSim } from '../../sim/server.js';
import { auditBalances } from '../../store/balance-audit.js';
import type { BackendsKind } from '../helpers/fleet-backends.js';
import { startFleet, type Fleet, type FleetNode } from '../helpers/fleet.js';
import { DIALECTS, PATHS, readAnswer, requestBody } from '../helpers/metered-answers.js';
import { readSse } from '../kit/sse-reader.js';
import { startPostgres, type RunningPostgres } from '../helpers/postgres.js';
import { startRedis } from '../helpers/redis.js';

// Short sweeps, so that the hold of the stream the loss cut is released within the test.
const CONFIG = `upstream:
  forward_headers: [x-sim-itl-ms]
plugins:
  - name: auth
  - name: meter
    options: { orphan_hold_ms: 2000, node_lease_ms: 1000, sweep_interval_ms: 200 }
`;
/** The longest a request may take to fail while the database is down. */
const FAIL_WITHIN_MS = 3000;
/** The longest the fleet may take to serve again once the database is back. */
const RECOVER_WITHIN_MS = 15_000;

let sim: RunningSim;
t.before(async () => {
  sim = await startSim({ itlMs: 2, outputTokens: 24 });
});
t.teardown(() => sim.close());

/** PostgreSQL and one Redis, with the PostgreSQL server at hand to stop and start. */
function postgresBackends(): { kind: BackendsKind; postgres: () => RunningPostgres } {
  let postgres: RunningPostgres | undefined;
  const kind: BackendsKind = {
    label: 'PostgreSQL + one Redis',
    async start() {
      const dir = mkdtempSync(join(tmpdir(), 'gateway-fleet-'));
      const [server, redis] = await Promise.all([startPostgres(), startRedis()]);
      postgres = server;
      return {
        store: { dataDir: join(dir, 'data'), url: await server.createDatabase('fleet') },
        redis: { url: redis.url },
        async close() {
          await Promise.all([server.close(), redis.close()]);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
  return { kind, postgres: () => postgres! };
}

interface Answer {
  status: number;
  body: string;
  ms: number;
}

async function call(node: FleetNode, key: string, dialect: DialectName, stream: boolean): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(node.url + PATHS[dialect], {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(requestBody(dialect, stream)),
    signal: AbortSignal.timeout(20_000), // a hang fails the test rather than stalling it
  });
  const body = await response.text();
  return { status: response.status, body, ms: performance.now() - started };
}

/** The error a dialect's client sees for "the database is unreachable": its type and code fields. */
function errorOf(dialect: DialectName, body: string): { type: unknown; code: unknown } {
  const parsed = JSON.parse(body) as { error?: { type?: unknown; code?: unknown } };
  return { type: parsed.error?.type, code: dialect === 'messages' ? undefined : parsed.error?.code };
}

const UNAVAILABLE: Record<DialectName, { type: string; code: string | undefined }> = {
  chat: { type: 'server_error', code: 'store_unavailable' },
  messages: { type: 'overloaded_error', code: undefined },
  responses: { type: 'server_error', code: 'store_unavailable' },
};

async function ready(node: FleetNode): Promise<{ status: number; body: { checks?: Record<string, unknown> } }> {
  const response = await fetch(`${node.url}/ready`, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: (await response.json()) as { checks?: Record<string, unknown> } };
}

/** A slow stream (100 ms between tokens: 2.4 s) to one node; resolves `started` at its first event. */
function slowStream(node: FleetNode, key: string): { started: Promise<void>; text: Promise<string> } {
  let started: () => void = () => {};
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const text = fetch(node.url + PATHS.chat, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-sim-itl-ms': '100' },
    body: JSON.stringify(requestBody('chat', true, 'Say something about databases.', 40)),
    signal: AbortSignal.timeout(20_000),
  }).then(async (response) => {
    let whole = '';
    for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
      whole += chunk;
      if (whole.includes('\n\n')) started();
    }
    return whole;
  });
  text.catch(() => started());
  return { started: startedPromise, text };
}

t.test('PostgreSQL lost for a while: 503s in every dialect, nodes up, served again once it is back', async (t) => {
  const backends = postgresBackends();
  const fleet: Fleet = await startFleet(t, {
    backends: backends.kind,
    upstreamUrl: `${sim.url}/v1`,
    config: CONFIG,
    nodes: 2,
  });
  const org = fleet.createOrg('acme', '100');
  // A key no node has looked up yet: while the database is down its lookup (auth) fails, not the hold (meter).
  const unseen = fleet.createKey('acme', 'unseen');
  const postgres = backends.postgres();

  await t.test('before: 200s on every node, in every dialect, streamed and not', async (t) => {
    for (const node of fleet.nodes)
      for (const dialect of DIALECTS)
        for (const stream of [false, true]) {
          const answer = await call(node, org.key, dialect, stream);
          t.equal(answer.status, 200, `${node.address} ${dialect} ${stream ? 'stream' : 'body'}`);
          t.ok((await readAnswer(dialect, stream, new Response(answer.body))).complete);
        }
  });

  const inFlight = slowStream(fleet.nodes[0]!, org.key);
  await inFlight.started;
  await postgres.stop();
  const stoppedAt = performance.now();

  await t.test('while down: a 503 store_unavailable in the dialect, fast, never a 500', async (t) => {
    const times: number[] = [];
    for (const node of fleet.nodes)
      for (const [who, key] of [
        ['a known key', org.key],
        ['an unseen key', unseen.key],
      ] as const)
        for (const dialect of DIALECTS)
          for (const stream of [false, true]) {
            const answer = await call(node, key, dialect, stream);
            const label = `${node.address} ${who} ${dialect} ${stream ? 'stream' : 'body'}`;
            t.equal(answer.status, 503, label);
            t.same(errorOf(dialect, answer.body), UNAVAILABLE[dialect], `${label}: ${answer.body}`);
            t.notMatch(answer.body, /ECONNREFUSED|at .*\.js|stack/, 'no internals in the answer');
            times.push(answer.ms);
          }
    const slowest = Math.max(...times);
    t.comment(
      `a request fails in ${Math.round(Math.min(...times))}–${Math.round(slowest)} ms while PostgreSQL is down`,
    );
    t.ok(
      slowest < FAIL_WITHIN_MS,
      `every request fails within ${FAIL_WITHIN_MS} ms (slowest ${Math.round(slowest)} ms)`,
    );
  });

  await t.test('while down: /ready is 503 with the store unreachable; Redis stays ok', async (t) => {
    for (const node of fleet.nodes) {
      const answer = await ready(node);
      t.equal(answer.status, 503, node.address);
      t.not(answer.body.checks?.store, 'ok', `${node.address}: store ${String(answer.body.checks?.store)}`);
      t.equal(answer.body.checks?.redis, 'ok');
    }
  });

  await t.test('a stream in flight when the database died ends with an error event, not its end', async (t) => {
    const frames = readSse(await inFlight.text);
    const last = frames.at(-1);
    t.comment(`the stream's last frame: ${last?.data}`);
    t.notOk(
      frames.some((frame) => frame.data === '[DONE]'),
      'the client never got the end it was not billed for',
    );
    t.match(JSON.parse(last!.data), { error: { code: 'store_unavailable' } });
  });

  await t.test('while down: the node processes stay up', async (t) => {
    for (const node of fleet.nodes) t.equal(node.child.exitCode, null, `${node.address} is running`);
  });

  await postgres.start();
  const startedAt = performance.now();
  t.comment(`PostgreSQL was down for ${Math.round(startedAt - stoppedAt)} ms`);

  await t.test('back: every node is ready and serves 200s again, without a restart, in bounded time', async (t) => {
    const pids = fleet.nodes.map((node) => node.child.pid);
    const recovered = await Promise.all(
      fleet.nodes.map(async (node) => {
        let served = false;
        let isReady = false;
        while (!(served && isReady) && performance.now() - startedAt < RECOVER_WITHIN_MS) {
          served ||= (await call(node, unseen.key, 'messages', false)).status === 200;
          isReady ||= (await ready(node)).status === 200;
          if (!(served && isReady)) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { served, isReady, ms: performance.now() - startedAt };
      }),
    );
    for (const [index, result] of recovered.entries()) {
      t.ok(result.served && result.isReady, `${fleet.nodes[index]!.address} serves and is ready again`);
      t.comment(
        `${fleet.nodes[index]!.address} served a 200 and /ready 200 ${Math.round(result.ms)} ms after PostgreSQL started`,
      );
    }
    t.same(
      fleet.nodes.map((node) => node.child.pid),
      pids,
      'the same processes',
    );
    for (const node of fleet.nodes)
      for (const dialect of DIALECTS)
        for (const stream of [false, true])
          t.equal((await call(node, org.key, dialect, stream)).status, 200, `${node.address} ${dialect}`);
  });

  await t.test('afterwards the books balance: the cut stream is released by the sweep, nothing open', async (t) => {
    const store = await fleet.store();
    const open = async (): Promise<number> =>
      (await store.db.selectFrom('usage').select('id').where('state', '=', 'held').execute()).length;
    while ((await open()) > 0 && performance.now() - startedAt < RECOVER_WITHIN_MS)
      await new Promise((resolve) => setTimeout(resolve, 50));
    t.equal(await open(), 0, 'no hold open after the sweep');
    const [audit] = await auditBalances(store.db, org.orgId);
    t.equal(audit!.discrepancyMicros, 0, 'balance = Σ grants − Σ settled − Σ open holds');
    const rows = await store.db.selectFrom('usage').select(['state', 'status']).execute();
    t.ok(rows.filter((row) => row.state === 'settled').length >= 24, 'the 200s before and after are settled');
    t.equal(rows.filter((row) => row.state === 'released').length, 1, 'one hold released: the cut stream');
  });
});
