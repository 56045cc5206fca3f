// A Redis that does not answer (docs/rate-limits.md, docs/organizations-and-keys.md, docs/deployment.md):
// at start the node does not start, and says which setting to look at; later, a command that gets no
// answer fails at the client's command timeout (COMMAND_TIMEOUT_MS, store/redis-client.ts) and the
// request is answered, counted in the node's memory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../helpers/free-port.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { runGateway } from '../helpers/gateway-process.js';
import { startRedis } from '../helpers/redis.js';
import { startStack } from '../helpers/stack.js';

t.test('a node that cannot reach Redis at start does not start, and the error names redis.url', async (t) => {
  // A free port: nothing listens there.
  const url = `redis://127.0.0.1:${await freePort()}`;
  const { code, err } = runGateway(
    {
      GATEWAY_REDIS_URL: url,
      GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gateway-redis-at-start-')),
      GATEWAY_UPSTREAM_URL: 'http://127.0.0.1:9/v1',
    },
    'start',
  );
  t.equal(code, 1, 'the process exits with an error');
  t.match(err, `redis.url: cannot reach Redis at ${url}`);
});

t.test(
  'a Redis that stops answering without closing its connections costs a request its command timeout, never a hang',
  async (t) => {
    const redis = await startRedis();
    t.teardown(() => redis.close());
    const relay = await startTcpRelay(redis.url);
    t.teardown(() => relay.close());
    const stack = await startStack({
      yaml: `redis:\n  url: ${relay.url}\nplugins:\n  - name: auth\n  - name: ratelimit\n`,
    });
    t.teardown(() => stack.close());
    const store = await stack.store();
    const org = await store.orgs.create('acme');
    const { key } = await store.keys.create(org.id, 'tests');
    const chat = (): Promise<Response> =>
      fetch(`${stack.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] }),
      });
    t.equal((await chat()).status, 200, 'counted in Redis');

    relay.freeze();
    const response = await chat();
    t.equal(response.status, 200, 'the request is answered');
    const requestId = response.headers.get('x-request-id');
    const warning = await stack.logged((entry) => entry.requestId === requestId && entry.level === 40);
    t.match(warning, {
      err: 'Command timed out',
      msg: /^ratelimit: Redis failed; this node counts the organization in its own memory/,
    });
  },
);
