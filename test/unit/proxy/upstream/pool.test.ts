// The upstream pool against real servers on loopback: balancing, passive health, retries.
import { once } from 'node:events';
import { createServer } from 'node:net';
import t from 'tap';
import { GatewayError } from '../../../../core/errors.js';
import { UpstreamPool } from '../../../../proxy/upstream/pool.js';
import { startSim, type RunningSim } from '../../../../sim/server.js';
import { TestClock } from '../../../helpers/clock.js';
import { poolOptions } from '../../../helpers/pool-options.js';

const body = JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hi' }], stream: true });

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const signal = new AbortController().signal;
let simA: RunningSim;
let simB: RunningSim;
t.before(async () => {
  simA = await startSim({ itlMs: 30, outputTokens: 10 });
  simB = await startSim({ itlMs: 30, outputTokens: 10 });
});
t.teardown(async () => {
  await simA.close();
  await simB.close();
});

t.test('requests go to the replica with the fewest in flight', async (t) => {
  const pool = new UpstreamPool(poolOptions([`${simA.url}/v1`, `${simB.url}/v1`]));
  const beforeA = simA.stats().requests;
  const beforeB = simB.stats().requests;
  const responses = await Promise.all(
    [1, 2, 3, 4].map(() => pool.post('/chat/completions', body, { signal, headers: {} })),
  );
  t.equal(simA.stats().requests - beforeA, 2);
  t.equal(simB.stats().requests - beforeB, 2);
  await Promise.all(responses.map((response) => response.text(1 << 20)));
  await new Promise((resolve) => setImmediate(resolve));
  t.same(
    pool.replicas.map((replica) => replica.inFlight),
    [0, 0],
    'in-flight counts return to zero when the streams end',
  );
  await pool.close();
});

t.test('a connection failure is retried on another replica, and the failing one is taken out', async (t) => {
  const clock = new TestClock();
  const dead = `http://127.0.0.1:${await closedPort()}/v1`;
  const pool = new UpstreamPool(poolOptions([dead, `${simA.url}/v1`], { now: clock.now }));
  for (let i = 0; i < 4; i++) {
    const response = await pool.post('/chat/completions', body, { signal, headers: {} });
    t.equal(response.statusCode, 200);
    await response.text(1 << 20);
  }
  t.notOk(pool.replicas[0]!.healthyAt(clock.now()), 'the dead replica is out');
  t.ok(pool.replicas[1]!.healthyAt(clock.now()));
  await pool.close();
});

t.test('when every attempt fails to connect, the error is upstream unreachable (502)', async (t) => {
  const pool = new UpstreamPool(poolOptions([`http://127.0.0.1:${await closedPort()}/v1`], { retries: 2 }));
  await t.rejects(
    pool.post('/chat/completions', body, { signal, headers: {} }),
    new GatewayError('GW_ERR_UPSTREAM_UNREACHABLE', 'The upstream model server cannot be reached.'),
  );
  await pool.close();
});

t.test('a replica that refused connections is tried again after its cool-down', async (t) => {
  const clock = new TestClock();
  const pool = new UpstreamPool(poolOptions([`${simB.url}/v1`], { retries: 0, unhealthyMs: 50, now: clock.now }));
  await simB.setRefusing(true);
  await t.rejects(pool.post('/chat/completions', body, { signal, headers: {} }), {
    code: 'GW_ERR_UPSTREAM_UNREACHABLE',
  });
  await simB.setRefusing(false);
  t.notOk(pool.replicas[0]!.healthyAt(clock.now()), 'out for its cool-down');
  clock.advance(49);
  t.notOk(pool.replicas[0]!.healthyAt(clock.now()));
  clock.advance(1);
  t.ok(pool.replicas[0]!.healthyAt(clock.now()), 'back after unhealthyMs');
  const response = await pool.post('/chat/completions', body, { signal, headers: {} });
  t.equal(response.statusCode, 200);
  await response.text(1 << 20);
  t.ok(pool.replicas[0]!.healthyAt(clock.now()));
  await pool.close();
});

t.test('a base URL without a path gets /v1', async (t) => {
  const pool = new UpstreamPool(poolOptions([simA.url]));
  t.equal(pool.replicas[0]!.basePath, '/v1');
  const response = await pool.post('/chat/completions', body, { signal, headers: {} });
  t.equal(response.statusCode, 200);
  await response.text(1 << 20);
  await pool.close();
});

t.test(
  'a request that waits queueTimeoutMs for a connection is refused as overloaded, and never sent; a client that leaves while queued is let go at once',
  async (t) => {
    const sim = await startSim({});
    t.teardown(() => sim.close());
    const pool = new UpstreamPool(poolOptions([`${sim.url}/v1`], { connections: 1, queueTimeoutMs: 250 }));
    const holder = new AbortController();
    const held = await pool.post('/chat/completions', body, {
      signal: holder.signal,
      headers: { 'x-sim-fault': 'stall:1' },
    });
    t.equal(held.statusCode, 200, 'the one connection is taken by a stalled stream');
    await t.rejects(pool.post('/chat/completions', body, { signal, headers: {} }), {
      code: 'GW_ERR_UPSTREAM_OVERLOADED',
      status: 503,
    });
    const leaving = new AbortController();
    const queued = pool.post('/chat/completions', body, { signal: leaving.signal, headers: {} });
    leaving.abort();
    await t.rejects(queued, 'the queued request ends when its client goes away');
    t.equal(sim.stats().requests, 1, 'neither reached the upstream');
    // The stalled stream let go, its connection closes; the next request then opens one. (Sent at once, it waited
    // for the close on a busy machine past a 20 ms queue timeout: a flake.)
    const closed = once(pool.replicas[0]!.pool, 'disconnect');
    holder.abort();
    await closed;
    const next = await pool.post('/chat/completions', body, { signal, headers: {} });
    t.equal(next.statusCode, 200, 'a free connection serves the next one');
    await next.text(1 << 20);
    t.equal(sim.stats().requests, 2, 'the abandoned ones were dropped, not sent');
    await pool.close();
  },
);

/** What each sim got while `count` requests went through the pool one after another, each read to its end. */
async function sentOneByOne(pool: UpstreamPool, count: number, affinity?: () => string): Promise<number[]> {
  const before = [simA.stats().requests, simB.stats().requests];
  for (let i = 0; i < count; i++)
    await (
      await pool.post('/chat/completions', body, { signal, headers: {}, ...(affinity && { affinity }) })
    ).text(1 << 20);
  return [simA.stats().requests - before[0]!, simB.stats().requests - before[1]!];
}

t.test('affinity: the requests of one conversation all go to one replica, even while others are free', async (t) => {
  const pool = new UpstreamPool(poolOptions([`${simA.url}/v1`, `${simB.url}/v1`]));
  const sent = await sentOneByOne(pool, 4, () => 'org\nkey:one');
  t.same(sent.toSorted(), [0, 4], `sent ${sent}`);
  await pool.close();
});

t.test('weights: a replica of weight 3 takes three of every four requests in flight', async (t) => {
  const pool = new UpstreamPool(poolOptions([`${simA.url}/v1`, `${simB.url}/v1`], { weights: [3, 1] }));
  const before = [simA.stats().requests, simB.stats().requests];
  const responses = await Promise.all(
    Array.from({ length: 8 }, () => pool.post('/chat/completions', body, { signal, headers: {} })),
  );
  t.same([simA.stats().requests - before[0]!, simB.stats().requests - before[1]!], [6, 2]);
  await Promise.all(responses.map((response) => response.text(1 << 20)));
  await pool.close();
});

t.test('round_robin: replicas take turns whatever their load', async (t) => {
  const pool = new UpstreamPool(poolOptions([`${simA.url}/v1`, `${simB.url}/v1`], { routing: 'round_robin' }));
  t.same(await sentOneByOne(pool, 4, () => 'org\nkey:one'), [2, 2]);
  await pool.close();
});

t.test('one weight per URL, or the pool refuses to start', async (t) => {
  t.throws(() => new UpstreamPool(poolOptions([`${simA.url}/v1`, `${simB.url}/v1`], { weights: [1] })), {
    message: 'the upstream pool needs one weight per URL',
  });
});

t.test(
  'a replica its server shows full is passed by while another has room; with none, full ones still serve',
  async (t) => {
    const pool = new UpstreamPool(poolOptions([`${simA.url}/v1`, `${simB.url}/v1`]));
    pool.replicas[0]!.full = true;
    t.same(await sentOneByOne(pool, 4), [0, 4]);
    pool.replicas[1]!.full = true;
    t.same(
      (await sentOneByOne(pool, 4)).reduce((a, b) => a + b),
      4,
      'every request still served',
    );
    await pool.close();
  },
);
