// Rate limits across gateway nodes: three gateway processes on one Redis admit exactly the limit between
// them (every check-and-consume is one atomic Redis step); with in-process counters each node admits
// the full limit, so three admit three times it (why several nodes need Redis).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import t from 'tap';
import { startSim } from '../../sim/server.js';
import { openStore } from '../../store/store.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startRedis } from '../helpers/redis.js';
import { CHAINS, startTier } from '../kit/stack-presets.js';

const LIMIT = 50;
const CALLS = 150;
const hello = JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] });

const [redis, sim] = await Promise.all([startRedis(), startSim({})]);
t.teardown(() => Promise.all([redis.close(), sim.close()]));

/** Three gateway nodes sharing one store, with auth + ratelimit and LIMIT requests per minute. */
async function cluster(redisUrl?: string): Promise<{ nodes: GatewayProcess[]; key: string; orgId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-nodes-'));
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, startTier(LIMIT) + CHAINS.authRatelimit);
  const store = await openStore({ dataDir: join(dir, 'data') });
  const org = await store.orgs.create('acme');
  const { key } = await store.keys.create('acme', 'shared');
  await store.close();
  const env: Record<string, string> = {
    GATEWAY_CONFIG: config,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_UPSTREAM_URL: `${sim.url}/v1`,
    GATEWAY_LOG_LEVEL: 'warn',
    ...(redisUrl ? { GATEWAY_REDIS_URL: redisUrl } : {}),
  };
  const nodes = await Promise.all([startGatewayProcess(env), startGatewayProcess(env), startGatewayProcess(env)]);
  return { nodes, key, orgId: org.id };
}

/** CALLS concurrent requests, spread round-robin over the nodes: how many got each status. */
async function burst(nodes: GatewayProcess[], key: string): Promise<Record<number, number>> {
  const statuses = await Promise.all(
    Array.from({ length: CALLS }, async (_, i) => {
      const response = await fetch(`${nodes[i % nodes.length]!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: hello,
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

t.test(
  'with Redis, three nodes admit exactly the limit between them: 50 of 150 concurrent requests pass, 100 get 429',
  async (t) => {
    const { nodes, key, orgId } = await cluster(redis.url);
    t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
    t.same(await burst(nodes, key), { 200: LIMIT, 429: CALLS - LIMIT });

    const client = new Redis(redis.url);
    t.teardown(() => client.quit());
    t.equal(
      await client.get(`gateway:ratelimit:requests:{${orgId}}`),
      String(CALLS),
      'one shared counter under redis.key_prefix, every call counted',
    );
    const ttl = await client.pttl(`gateway:ratelimit:requests:{${orgId}}`);
    t.ok(ttl > 0 && ttl <= 60_000, `it expires with the window (${ttl} ms left)`);
  },
);

t.test('without Redis, each node counts alone: three nodes admit up to three times the limit', async (t) => {
  const { nodes, key } = await cluster();
  t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
  const counts = await burst(nodes, key);
  t.equal(counts[200], LIMIT * nodes.length, `${counts[200]} of ${CALLS} passed against a limit of ${LIMIT}`);
});
