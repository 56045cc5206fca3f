// GET /ready (docs/deployment.md, "Node lifecycle"): 200 while the node can serve (its store answers,
// its Redis connections are up, it is not draining), else 503 naming the check that failed; no key
// needed. And what a drain does to the connections that still reach the node.
import t from 'tap';
import { TestClock } from '../helpers/clock.js';
import { RawConnection } from '../helpers/raw-http.js';
import { startRedis } from '../helpers/redis.js';
import { startStack, type Stack } from '../helpers/stack.js';

const METERED = `upstream:
  forward_headers: [x-sim-itl-ms, x-sim-output-tokens]
plugins:
  - name: auth
  - name: meter
`;

async function ready(stack: Stack): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${stack.gateway.url}/ready`);
  return { status: response.status, body: await response.json() };
}

/** A key of a new organization with credits. */
async function keyOf(stack: Stack): Promise<string> {
  const store = await stack.store();
  const org = await store.orgs.create(`ready-${Math.random().toString(36).slice(2)}`);
  await store.orgs.addCredits(org.id, 100_000_000);
  return (await store.keys.create(org.id, 'ready')).key;
}

/** A slow stream, read up to its first event: it keeps the drain from ending while a test looks at it. */
async function streamInFlight(stack: Stack): Promise<void> {
  const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await keyOf(stack)}`,
      'x-sim-itl-ms': '50',
      'x-sim-output-tokens': '2000',
    },
    body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'hi' }], stream: true }),
  });
  const reader = response.body!.getReader();
  await reader.read();
  // The rest is read (and dropped) until the drain cuts the stream.
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
  })();
}

t.test('/ready answers 200 with the store checked, and needs no key', async (t) => {
  const stack = await startStack({ yaml: METERED });
  t.teardown(() => stack.close());
  t.same(await ready(stack), { status: 200, body: { status: 'ready', checks: { store: 'ok', draining: false } } });
});

t.test(
  'a request reaching the node during the drain: /ready answers 503 draining, with connection: close',
  async (t) => {
    const stack = await startStack({ yaml: METERED });
    t.teardown(() => stack.close());
    await streamInFlight(stack);
    // A connection that is busy (its request's headers part-way) when the drain begins stays open.
    const connection = await RawConnection.open(stack.gateway.url);
    t.teardown(() => connection.close());
    connection.write('GET /ready HTTP/1.1\r\nhost: x\r\n');
    // A round trip on another connection: by its end the server has read those bytes (they came first).
    await fetch(`${stack.gateway.url}/health`, { headers: { connection: 'close' } });
    const drained = stack.gateway.drain();
    await stack.logged((entry) => entry.msg === 'draining');
    connection.write('\r\n');
    const response = await connection.response();
    t.equal(response.status, 503);
    t.same(JSON.parse(response.body), { status: 'unready', checks: { draining: true } });
    t.equal(response.headers.connection, 'close');
    await connection.closed;
    stack.gateway.cutDrain();
    await drained;
  },
);

t.test('an idle kept-alive connection is closed when the drain begins', async (t) => {
  const stack = await startStack({ yaml: METERED });
  t.teardown(() => stack.close());
  await streamInFlight(stack);
  const connection = await RawConnection.open(stack.gateway.url);
  t.teardown(() => connection.close());
  connection.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
  t.equal((await connection.response()).status, 200);
  const drained = stack.gateway.drain();
  await connection.closed;
  t.pass('closed while a stream still drains');
  stack.gateway.cutDrain();
  await drained;
});

t.test('/ready answers 503 while Redis is down, and 200 again when it is back', async (t) => {
  let redis = await startRedis();
  const port = Number(new URL(redis.url).port);
  t.teardown(() => redis.close());
  const clock = new TestClock();
  const stack = await startStack({ yaml: `redis:\n  url: ${redis.url}\n${METERED}`, now: clock.now });
  t.teardown(() => stack.close());
  /** Probes (each past the cache) until the answer has `status`, within a bound. */
  const until = async (status: number): Promise<{ status: number; body: unknown }> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      clock.advance(1000);
      const answer = await ready(stack);
      if (answer.status === status || Date.now() > deadline) return answer;
    }
  };
  t.same(await until(200), {
    status: 200,
    body: { status: 'ready', checks: { store: 'ok', redis: 'ok', draining: false } },
  });
  await redis.close();
  t.same(await until(503), {
    status: 503,
    body: { status: 'unready', checks: { store: 'ok', redis: 'unreachable', draining: false } },
  });
  redis = await startRedis(port);
  t.same(await until(200), {
    status: 200,
    body: { status: 'ready', checks: { store: 'ok', redis: 'ok', draining: false } },
  });
});
