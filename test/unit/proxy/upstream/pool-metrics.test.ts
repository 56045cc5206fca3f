// The upstream pool's metrics against real servers on loopback: each attempt counted once, by its
// replica and outcome, with retries, error kinds, first-byte times and pool waits.
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import t from 'tap';
import { UpstreamPool, type UpstreamPoolOptions } from '../../../../proxy/upstream/pool.js';
import { startSim, type RunningSim } from '../../../../sim/server.js';
import { GatewayMetrics } from '../../../../telemetry/metrics.js';
import { replicaLabel } from '../../../../telemetry/replica-label.js';
import { parseMetrics, sumOf, type Sample } from '../../../helpers/prometheus-text.js';
import { poolOptions } from '../../../helpers/pool-options.js';

const body = JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hi' }], stream: true });
const signal = new AbortController().signal;

function options(urls: string[], metrics: GatewayMetrics, overrides: Partial<UpstreamPoolOptions> = {}) {
  return poolOptions(urls, { metrics, ...overrides });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function samples(metrics: GatewayMetrics): Promise<Sample[]> {
  return parseMetrics(await metrics.render());
}

let sim: RunningSim;
let replica: string;
t.before(async () => {
  sim = await startSim({ itlMs: 1, outputTokens: 5 });
  replica = replicaLabel(`${sim.url}/v1`);
});
t.teardown(() => sim.close());

t.test('each answered attempt counts once by replica and status class, with its first-byte time', async (t) => {
  const metrics = new GatewayMetrics({ perOrg: false });
  const pool = new UpstreamPool(options([`${sim.url}/v1`], metrics));
  t.teardown(() => pool.close());
  for (const fault of ['none', 'none', '429', '500']) {
    const response = await pool.post('/chat/completions', body, { signal, headers: { 'x-sim-fault': fault } });
    await response.text(1 << 20);
  }
  const got = await samples(metrics);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica, outcome: '2xx' }), 2);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica, outcome: '4xx' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica, outcome: '5xx' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { outcome: 'error' }), 0);
  t.equal(sumOf(got, 'gateway_upstream_errors_total', { replica, kind: 'status_5xx' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_errors_total'), 1, 'a 4xx is the request, not the upstream, failing');
  t.equal(sumOf(got, 'gateway_upstream_first_byte_seconds_count', { replica }), 4);
  t.equal(sumOf(got, 'gateway_upstream_retries_total'), 0);
  t.equal(sumOf(got, 'gateway_upstream_pool_waits_total'), 0, 'no request waited for a connection');
});

t.test('a connection failure counts as a connect error and a retry of the replica that failed', async (t) => {
  const metrics = new GatewayMetrics({ perOrg: false });
  const dead = `http://127.0.0.1:${await closedPort()}/v1`;
  // The first pick is the first replica: the dead one, then the retry goes to the live one.
  const pool = new UpstreamPool(options([dead, `${sim.url}/v1`], metrics));
  t.teardown(() => pool.close());
  const response = await pool.post('/chat/completions', body, { signal, headers: {} });
  t.equal(response.statusCode, 200);
  await response.text(1 << 20);
  const got = await samples(metrics);
  const deadLabel = replicaLabel(dead);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica: deadLabel, outcome: 'error' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_errors_total', { replica: deadLabel, kind: 'connect' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_retries_total', { replica: deadLabel }), 1);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica, outcome: '2xx' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_first_byte_seconds_count'), 1, 'only an answered attempt has a first byte');
});

t.test('an upstream that sends no head in time counts a timeout', async (t) => {
  const silent = createHttpServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    silent.closeAllConnections();
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
  const metrics = new GatewayMetrics({ perOrg: false });
  const pool = new UpstreamPool(options([url], metrics, { firstByteTimeoutMs: 50 }));
  t.teardown(() => pool.close());
  await t.rejects(pool.post('/chat/completions', body, { signal, headers: {} }), { code: 'GW_ERR_UPSTREAM_TIMEOUT' });
  const got = await samples(metrics);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica: replicaLabel(url), outcome: 'error' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_errors_total', { replica: replicaLabel(url), kind: 'timeout' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_retries_total'), 0, 'a timeout is not retried');
});

t.test('a stream that breaks after its head counts one failed call', async (t) => {
  const metrics = new GatewayMetrics({ perOrg: false });
  const pool = new UpstreamPool(options([`${sim.url}/v1`], metrics));
  t.teardown(() => pool.close());
  const response = await pool.post('/chat/completions', body, { signal, headers: { 'x-sim-fault': 'cut:2' } });
  t.equal(response.statusCode, 200);
  await t.rejects(response.text(1 << 20));
  const got = await samples(metrics);
  t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica, outcome: '2xx' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_errors_total', { replica, kind: 'failed' }), 1);
  t.equal(sumOf(got, 'gateway_upstream_errors_total'), 1);
});

t.test(
  'a request that waits for a connection counts a pool wait; refused after the queue timeout it is overloaded; a client that leaves is no error',
  async (t) => {
    const metrics = new GatewayMetrics({ perOrg: false });
    const pool = new UpstreamPool(options([`${sim.url}/v1`], metrics, { connections: 1, queueTimeoutMs: 20 }));
    t.teardown(() => pool.close());
    const holder = new AbortController();
    const held = await pool.post('/chat/completions', body, {
      signal: holder.signal,
      headers: { 'x-sim-fault': 'stall:1' },
    });
    t.equal(held.statusCode, 200, 'the one connection is taken by a stalled stream');
    await t.rejects(pool.post('/chat/completions', body, { signal, headers: {} }), {
      code: 'GW_ERR_UPSTREAM_OVERLOADED',
    });
    const leaving = new AbortController();
    const queued = pool.post('/chat/completions', body, { signal: leaving.signal, headers: {} });
    leaving.abort();
    await t.rejects(queued);
    holder.abort();
    const got = await samples(metrics);
    t.equal(sumOf(got, 'gateway_upstream_pool_waits_total', { replica }), 2, 'both queued requests waited');
    t.equal(sumOf(got, 'gateway_upstream_errors_total', { replica, kind: 'overloaded' }), 1);
    t.equal(
      sumOf(got, 'gateway_upstream_errors_total'),
      1,
      'the client leaving, and the holder letting go, are no errors',
    );
    t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica, outcome: 'error' }), 2);
    t.equal(sumOf(got, 'gateway_upstream_requests_total', { replica, outcome: '2xx' }), 1);
  },
);

t.test("a replica's label is the base URL its requests go to", async (t) => {
  const metrics = new GatewayMetrics({ perOrg: false });
  const pool = new UpstreamPool(options([`${sim.url}/`], metrics));
  t.teardown(() => pool.close());
  t.equal(pool.replicas[0]!.label, replicaLabel(`${sim.url}/v1`));
});

t.test('a conversation routed by affinity counts a hit at its replica, or a spill where it went instead', async (t) => {
  const metrics = new GatewayMetrics({ perOrg: false });
  const other = await startSim({ itlMs: 1, outputTokens: 5 });
  const urls = [`${sim.url}/v1`, `${other.url}/v1`];
  const pool = new UpstreamPool(options(urls, metrics));
  t.teardown(async () => {
    await pool.close();
    await other.close();
  });
  const send = async () =>
    (await pool.post('/chat/completions', body, { signal, headers: {}, affinity: () => 'org\nkey:c' })).text(1 << 20);
  await send();
  await send();
  let got = await samples(metrics);
  t.equal(sumOf(got, 'gateway_upstream_affinity_total', { outcome: 'hit' }), 2);
  t.equal(sumOf(got, 'gateway_upstream_affinity_total', { outcome: 'spilled' }), 0);
  const home = got.find((sample) => sample.name === 'gateway_upstream_affinity_total' && sample.value === 2)!.labels
    .replica;
  // Its replica taken out, the conversation spills to the other one.
  pool.replicas.find((candidate) => candidate.label === home)!.markFailure(Date.now());
  await send();
  got = await samples(metrics);
  const spilled = got.filter(
    (sample) =>
      sample.name === 'gateway_upstream_affinity_total' && sample.labels.outcome === 'spilled' && sample.value > 0,
  );
  t.same(
    spilled.map((sample) => [sample.value, sample.labels.replica === home]),
    [[1, false]],
  );
});

t.test('each replica’s requests under way are a gauge read at scrape time', async (t) => {
  const metrics = new GatewayMetrics({ perOrg: false });
  metrics.readAtScrape({
    inFlight: () => 0,
    replicas: () => [{ replica: 'http://a/v1', healthy: true, outstanding: 7, queued: 0 }],
    tokenizerQueue: () => 0,
  });
  t.equal(sumOf(await samples(metrics), 'gateway_upstream_replica_outstanding', { replica: 'http://a/v1' }), 7);
});
