// Active health checks of the upstream replicas (proxy/upstream/health-checks.ts), against health endpoints on
// loopback whose answer the test sets.
import { createServer, type Server } from 'node:http';
import t, { type Test } from 'tap';
import { HealthChecks } from '../../../../proxy/upstream/health-checks.js';
import { UpstreamPool } from '../../../../proxy/upstream/pool.js';
import { TestClock } from '../../../helpers/clock.js';
import { poolOptions } from '../../../helpers/pool-options.js';

/** A server whose GET /health answers `status` and GET /metrics `metrics` (404 when undefined), which the test changes. */
async function healthServer(): Promise<{
  server: Server;
  url: string;
  status: number;
  probes: number;
  metrics: string | undefined;
}> {
  const state = {
    server: createServer(),
    url: '',
    status: 200,
    probes: 0,
    metrics: undefined as string | undefined,
  };
  state.server.on('request', (req, res) => {
    if (req.url === '/health') state.probes += 1;
    if (req.url === '/metrics' && state.metrics !== undefined) res.writeHead(200).end(state.metrics);
    else res.writeHead(req.url === '/health' ? state.status : 404).end();
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as { port: number }).port}/v1`;
  return state;
}

interface Logged {
  level: 'warn' | 'info';
  fields: Record<string, unknown>;
  message: string;
}

async function setUp(t: Test, load?: { kvCacheFull: number }) {
  const a = await healthServer();
  const b = await healthServer();
  const clock = new TestClock();
  const pool = new UpstreamPool(poolOptions([a.url, b.url], { now: clock.now }));
  const logged: Logged[] = [];
  const checks = new HealthChecks(pool.replicas, {
    flavor: 'vllm',
    intervalMs: 60_000,
    target: { apiKey: undefined, timeoutMs: 1000 },
    ...(load !== undefined ? { load } : {}),
    log: {
      warn: (fields, message) => logged.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
      info: (fields, message) => logged.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
    },
  });
  t.teardown(async () => {
    await checks.close();
    await pool.close();
    a.server.close();
    b.server.close();
  });
  return { a, b, clock, pool, checks, logged };
}

t.test(
  'a replica whose health endpoint does not answer 200 is out of the routing until a probe finds it up',
  async (t) => {
    const { a, b, clock, pool, checks } = await setUp(t);
    await checks.start();
    t.same(
      pool.replicas.map((replica) => replica.probe),
      ['up', 'up'],
      'the first round runs at start',
    );
    t.equal(a.probes + b.probes, 2);
    a.status = 503;
    await checks.probeAll();
    t.same(
      pool.replicas.map((replica) => replica.healthyAt(clock.now())),
      [false, true],
    );
    clock.advance(3_600_000);
    t.equal(pool.replicas[0]!.healthyAt(clock.now()), false, 'no cool-down brings it back: only a probe');
    a.status = 200;
    await checks.probeAll();
    t.equal(pool.replicas[0]!.healthyAt(clock.now()), true);
  },
);

t.test('a replica that does not answer at all is down', async (t) => {
  const { a, pool, checks } = await setUp(t);
  await new Promise<void>((resolve) => a.server.close(() => resolve()));
  await checks.probeAll();
  t.equal(pool.replicas[0]!.probe, 'down');
});

t.test(
  'a replica found up after being down is back at once, the cool-down its failed requests earned ended',
  async (t) => {
    const { a, clock, pool, checks } = await setUp(t);
    pool.replicas[0]!.markFailure(clock.now());
    a.status = 503;
    await checks.probeAll();
    a.status = 200;
    await checks.probeAll();
    t.equal(pool.replicas[0]!.healthyAt(clock.now()), true);
  },
);

t.test(
  'a replica that stays up keeps the cool-down its failed requests earned (passive ejection between probes)',
  async (t) => {
    const { clock, pool, checks } = await setUp(t);
    await checks.probeAll();
    pool.replicas[0]!.markFailure(clock.now());
    await checks.probeAll();
    t.equal(pool.replicas[0]!.healthyAt(clock.now()), false);
  },
);

t.test('anyUp: some replica passed its last probe (/ready with the checks on)', async (t) => {
  const { a, b, checks } = await setUp(t);
  t.equal(checks.anyUp(), false, 'nothing is known before the first round');
  await checks.probeAll();
  t.equal(checks.anyUp(), true);
  a.status = 500;
  await checks.probeAll();
  t.equal(checks.anyUp(), true, 'one replica is enough');
  b.status = 500;
  await checks.probeAll();
  t.equal(checks.anyUp(), false);
});

t.test('a transition is logged once: a warning when a replica goes down, a line when it is back', async (t) => {
  const { a, checks, logged } = await setUp(t);
  await checks.probeAll();
  a.status = 503;
  await checks.probeAll();
  await checks.probeAll();
  a.status = 200;
  await checks.probeAll();
  await checks.probeAll();
  t.same(
    logged.map((line) => [line.level, line.fields.why]),
    [
      ['warn', 'answered 503'],
      ['info', undefined],
    ],
  );
});

t.test(
  'load_from_metrics: a replica whose server has requests waiting is full, and is passed by while another has room',
  async (t) => {
    const { a, b, pool, checks } = await setUp(t, { kvCacheFull: 0.95 });
    a.metrics = 'vllm:num_requests_waiting{engine="0"} 2\nvllm:kv_cache_usage_perc 0.5\n';
    b.metrics = 'vllm:num_requests_waiting{engine="0"} 0\nvllm:kv_cache_usage_perc 0.5\n';
    await checks.probeAll();
    t.same(
      pool.replicas.map((replica) => replica.full),
      [true, false],
    );
    b.metrics = 'vllm:num_requests_waiting 0\nvllm:kv_cache_usage_perc 0.96\n';
    await checks.probeAll();
    t.equal(pool.replicas[1]!.full, true, 'or whose KV cache is at the threshold');
    a.metrics = undefined;
    await checks.probeAll();
    t.equal(pool.replicas[0]!.full, false, 'no metrics (a 404): no load known, never full');
  },
);

t.test('without load_from_metrics, no metrics are read', async (t) => {
  const { a, pool, checks } = await setUp(t);
  a.metrics = 'vllm:num_requests_waiting 9\n';
  await checks.probeAll();
  t.equal(pool.replicas[0]!.full, false);
});
