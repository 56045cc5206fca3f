// Revocation across gateway nodes (spec §3.1, §5.6): two gateway processes share one store; a key
// revoked with Redis configured gets 401 from both at once, well inside their 5 s auth cache; without
// Redis, each node's cache lets it go within 5 s.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSim, type RunningSim } from '../../sim/server.js';
import { openStore } from '../../store/store.js';
import { runGateway, startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

const hello = JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] });
const status = async (node: GatewayProcess, key: string): Promise<number> =>
  (await fetch(`${node.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: hello })).status;

let redis: RunningRedis;
let sim: RunningSim;
t.before(async () => {
  [redis, sim] = await Promise.all([startRedis(), startSim({})]);
});
t.teardown(async () => {
  await Promise.all([redis.close(), sim.close()]);
});

/** A data directory with one org and a key, and a config whose auth cache trusts a lookup for `ttlMs`. */
async function cluster(ttlMs: number, redisUrl?: string): Promise<{ nodes: GatewayProcess[]; key: string; keyId: string; env: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-nodes-'));
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, `plugins:\n  - name: auth\n    options: { cache_ttl_ms: ${ttlMs} }\n`);
  const store = await openStore({ dataDir: join(dir, 'data') });
  await store.orgs.create('acme');
  const { key, record } = await store.keys.create('acme', 'shared');
  await store.close();
  const env: Record<string, string> = { GATEWAY_CONFIG: config, GATEWAY_DATA_DIR: join(dir, 'data'), GATEWAY_UPSTREAM_URL: `${sim.url}/v1`, GATEWAY_LOG_LEVEL: 'warn', ...(redisUrl ? { GATEWAY_REDIS_URL: redisUrl } : {}) };
  const nodes = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
  return { nodes, key, keyId: record.id, env };
}

/** Milliseconds until every node answers the key with 401 (polling every 50 ms, giving up after `limitMs`). */
async function untilRefused(nodes: GatewayProcess[], key: string, limitMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const statuses = await Promise.all(nodes.map((node) => status(node, key)));
    if (statuses.every((code) => code === 401)) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`still ${statuses.join(', ')} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test('with Redis, a key revoked on one node gets 401 from every node at once, inside their 5 s cache', async (t) => {
  const { nodes, key, keyId, env } = await cluster(5000, redis.url);
  t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
  t.same(await Promise.all(nodes.map((node) => status(node, key))), [200, 200], 'both nodes know (and cache) the key');

  const revoked = runGateway(env, 'keys', 'revoke', keyId);
  t.equal(revoked.code, 0, revoked.err);
  const elapsed = await untilRefused(nodes, key, 5000);
  t.ok(elapsed < 1000, `every node refused the key ${elapsed} ms after the revocation (cache: 5000 ms)`);
});

t.test('without Redis, two nodes sharing a store refuse a revoked key within 5 s', async (t) => {
  const { nodes, key, keyId, env } = await cluster(5000);
  t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
  t.same(await Promise.all(nodes.map((node) => status(node, key))), [200, 200]);

  t.equal(runGateway(env, 'keys', 'revoke', keyId).code, 0);
  const elapsed = await untilRefused(nodes, key, 5500);
  t.ok(elapsed <= 5500, `refused everywhere after ${elapsed} ms`);
});

t.test('a revoked key stays revoked: revoking again changes nothing, and the key never works again', async (t) => {
  const { nodes, key, keyId, env } = await cluster(1000, redis.url);
  t.teardown(() => Promise.all(nodes.map((node) => node.stop())));
  t.equal(runGateway(env, 'keys', 'revoke', keyId).code, 0);
  await untilRefused(nodes, key, 2000);
  const again = runGateway(env, 'keys', 'revoke', keyId);
  t.equal(again.code, 0);
  t.match(again.err, /already revoked/);
  await new Promise((resolve) => setTimeout(resolve, 1200));
  t.same(await Promise.all(nodes.map((node) => status(node, key))), [401, 401]);
});
