// Revocation across gateway nodes (spec §3.1, §5.6): two gateway processes share one store; a key
// revoked with Redis configured gets 401 from both as soon as they hear of it, though their auth
// cache would trust it for 5 s; without Redis, each node refuses it once its cache entry expires.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { startSim } from '../../sim/server.js';
import { openStore } from '../../store/store.js';
import { runGateway, startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startRedis } from '../helpers/redis.js';
import { chainOf } from '../kit/stack-presets.js';

const hello = JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] });
const status = async (node: GatewayProcess, key: string): Promise<number> =>
  (
    await fetch(`${node.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: hello,
    })
  ).status;

const [redis, sim] = await Promise.all([startRedis(), startSim({})]);
t.teardown(() => Promise.all([redis.close(), sim.close()]));

/** A data directory with one org and a key, and a config whose auth cache trusts a lookup for `ttlMs`. */
async function cluster(
  ttlMs: number,
  redisUrl?: string,
): Promise<{ nodes: GatewayProcess[]; key: string; keyId: string; env: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-nodes-'));
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, chainOf({ name: 'auth', options: `{ cache_ttl_ms: ${ttlMs} }` }));
  const store = await openStore({ dataDir: join(dir, 'data') });
  await store.orgs.create('acme');
  const { key, record } = await store.keys.create('acme', 'shared');
  await store.close();
  // Debug level: a node logs each revocation it hears over Redis.
  const env: Record<string, string> = {
    GATEWAY_CONFIG: config,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_UPSTREAM_URL: `${sim.url}/v1`,
    GATEWAY_LOG_LEVEL: redisUrl ? 'debug' : 'warn',
    ...(redisUrl ? { GATEWAY_REDIS_URL: redisUrl } : {}),
  };
  const nodes = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
  return { nodes, key, keyId: record.id, env };
}

/** Resolves when the node logs that it heard the revocation of `keyId` over Redis (and handed it to its auth cache). */
function hears(node: GatewayProcess, keyId: string): Promise<void> {
  const lines = createInterface({ input: node.child.stdout! });
  return new Promise((resolve) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; keyId?: string };
      if (entry.msg?.startsWith('redis: revocation heard') && entry.keyId === keyId) resolve();
    });
  });
}

/**
 * Asks every node until all refuse the key. For a node without Redis nothing announces the moment its
 * cache entry expires, so this polls; the test's timeout bounds it, the assertion does not.
 */
async function untilRefused(nodes: GatewayProcess[], key: string): Promise<void> {
  while (!(await Promise.all(nodes.map((node) => status(node, key)))).every((code) => code === 401)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test(
  'with Redis, a key revoked on one node gets 401 from every node once they hear of it, inside their 5 s cache',
  async (t) => {
    const { nodes, key, keyId, env } = await cluster(5000, redis.url);
    t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
    t.same(
      await Promise.all(nodes.map((node) => status(node, key))),
      [200, 200],
      'both nodes know (and cache) the key',
    );

    const heard = Promise.all(nodes.map((node) => hears(node, keyId)));
    const revoked = runGateway(env, 'keys', 'revoke', keyId);
    t.equal(revoked.code, 0, revoked.err);
    await heard;
    t.same(
      await Promise.all(nodes.map((node) => status(node, key))),
      [401, 401],
      'every node refuses the key its cache still held',
    );
  },
);

t.test('without Redis, two nodes sharing a store refuse a revoked key once their cache entries expire', async (t) => {
  const { nodes, key, keyId, env } = await cluster(200);
  t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
  t.same(await Promise.all(nodes.map((node) => status(node, key))), [200, 200]);

  t.equal(runGateway(env, 'keys', 'revoke', keyId).code, 0);
  await untilRefused(nodes, key);
  t.pass('refused everywhere');
});

t.test('a revoked key stays revoked: revoking again changes nothing, and the key never works again', async (t) => {
  // No cache: every request asks the store.
  const { nodes, key, keyId, env } = await cluster(0, redis.url);
  t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
  t.equal(runGateway(env, 'keys', 'revoke', keyId).code, 0);
  t.same(await Promise.all(nodes.map((node) => status(node, key))), [401, 401]);
  const again = runGateway(env, 'keys', 'revoke', keyId);
  t.equal(again.code, 0);
  t.match(again.err, /already revoked/);
  t.same(await Promise.all(nodes.map((node) => status(node, key))), [401, 401]);
});
