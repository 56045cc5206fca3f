// Three gateway processes on a real Redis Cluster of three masters (GATEWAY_REDIS_CLUSTER): they admit
// exactly the rate limit between them, a key revoked with the CLI is refused by every node at once, and
// when one master is lost every request is still answered (the organizations of its slots counted per
// node, revocations heard through another master) until it is back and the counters are shared again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { startSim, type RunningSim } from '../../sim/server.js';
import { createRedisClient, type RedisClient } from '../../store/redis-client.js';
import { RedisRevocationBus } from '../../store/redis-revocations.js';
import { openStore, type Store } from '../../store/store.js';
import { runGateway, startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startRedisCluster, type RunningRedisCluster } from '../helpers/redis-cluster.js';
import { AUTH_CACHED, chainOf, startTier } from '../kit/stack-presets.js';

const LIMIT = 50;
const hello = JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] });

type LogEntry = { msg?: string; keyId?: string; time?: number };

/** A gateway process whose log is read as it comes (so its stdout never fills), for the Redis lines. */
interface Node {
  process: GatewayProcess;
  url: string;
  /** The first `redis:` log entry that matches, already written or the next one to be. */
  logged(matches: (entry: LogEntry) => boolean): Promise<LogEntry>;
}

function watch(process: GatewayProcess): Node {
  const seen: LogEntry[] = [];
  const waiting = new Set<{ matches: (entry: LogEntry) => boolean; resolve: (entry: LogEntry) => void }>();
  createInterface({ input: process.child.stdout! }).on('line', (line) => {
    const entry = JSON.parse(line) as LogEntry;
    if (!entry.msg?.startsWith('redis:')) return;
    seen.push(entry);
    for (const waiter of waiting)
      if (waiter.matches(entry)) {
        waiting.delete(waiter);
        waiter.resolve(entry);
      }
  });
  return {
    process,
    url: process.url,
    logged(matches) {
      const found = seen.find(matches);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.add({ matches, resolve }));
    },
  };
}

const heardRevocation =
  (keyId: string) =>
  (entry: LogEntry): boolean =>
    entry.msg?.startsWith('redis: revocation heard') === true && entry.keyId === keyId;

let cluster: RunningRedisCluster;
let sim: RunningSim;
let store: Store;
let client: RedisClient;
let nodes: Node[];
let env: Record<string, string>;
t.before(async () => {
  [cluster, sim] = await Promise.all([startRedisCluster(), startSim({})]);
  const dir = mkdtempSync(join(tmpdir(), 'gateway-cluster-nodes-'));
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, startTier(LIMIT) + chainOf(AUTH_CACHED, 'ratelimit'));
  store = await openStore({ dataDir: join(dir, 'data') });
  env = {
    GATEWAY_CONFIG: config,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_UPSTREAM_URL: `${sim.url}/v1`,
    // Debug: a node logs each revocation it hears over Redis.
    GATEWAY_LOG_LEVEL: 'debug',
    GATEWAY_REDIS_CLUSTER: cluster.urls.join(','),
  };
  nodes = (await Promise.all([0, 1, 2].map(() => startGatewayProcess(env)))).map(watch);
  client = createRedisClient({ cluster: cluster.urls });
  client.on('error', () => undefined);
});
t.teardown(async () => {
  await Promise.all((nodes ?? []).map((node) => node.process.stop()));
  await client?.quit().catch(() => client.disconnect());
  await store?.close();
  await Promise.all([cluster?.close(), sim?.close()]);
});

let orgs = 0;
/** A new organization and its API key. */
async function newKey(): Promise<{ orgId: string; key: string; keyId: string }> {
  const org = await store.orgs.create(`org-${++orgs}`);
  const { key, record } = await store.keys.create(org.id, 'shared');
  return { orgId: org.id, key, keyId: record.id };
}

/** A chat request with the key: its status and how long it took. */
async function call(node: Node, key: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${node.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: hello,
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

const requests = async (orgId: string): Promise<number> =>
  Number(await client.get(`gateway:ratelimit:requests:{${orgId}}`));

/** The master on which the node's revocation subscriber listens (its connection is named after its pid). */
async function subscriberOf(node: Node, masters: number[]): Promise<number | undefined> {
  const name = `name=ioredis-cluster(subscriber):gateway:${hostname()}:${node.process.child.pid} `;
  for (const i of masters) if ((await cluster.cli(i, 'client', 'list', 'type', 'pubsub')).includes(name)) return i;
  return undefined;
}

t.test('three nodes on a Redis Cluster admit exactly the limit: 50 of 150 concurrent requests pass', async (t) => {
  const { orgId, key } = await newKey();
  const statuses = await Promise.all(
    Array.from({ length: 3 * LIMIT }, async (_, i) => (await call(nodes[i % nodes.length]!, key)).status),
  );
  t.equal(statuses.filter((status) => status === 200).length, LIMIT);
  t.equal(statuses.filter((status) => status === 429).length, 2 * LIMIT);
  t.equal(await requests(orgId), 3 * LIMIT, "one counter in the cluster, on its organization's master");
});

t.test('a key revoked with the CLI on a Redis Cluster gets 401 from every node, inside their 5 s cache', async (t) => {
  const { key, keyId } = await newKey();
  t.same(await Promise.all(nodes.map(async (node) => (await call(node, key)).status)), [200, 200, 200]);
  const revoked = runGateway(env, 'keys', 'revoke', keyId);
  t.equal(revoked.code, 0, revoked.err);
  await Promise.all(nodes.map((node) => node.logged(heardRevocation(keyId))));
  t.same(await Promise.all(nodes.map(async (node) => (await call(node, key)).status)), [401, 401, 401]);
});

t.test('a revocation announced on the cluster reaches every node within 1 s', async (t) => {
  const bus = await RedisRevocationBus.connect({ target: { cluster: cluster.urls }, prefix: 'gateway:' });
  t.teardown(() => bus.close());
  const { keyId } = await newKey();
  await store.keys.revoke(keyId);
  const published = Date.now();
  await bus.publish(keyId);
  const heard = await Promise.all(nodes.map((node) => node.logged(heardRevocation(keyId))));
  const delays = heard.map((entry) => entry.time! - published);
  t.comment(`a revocation reached the three nodes after ${delays.join(', ')} ms (log time − publish time)`);
  t.ok(Math.max(...delays) < 1000, `within 1 s (slowest ${Math.max(...delays)} ms)`);
});

t.test(
  'a lost master: every request is answered, its organizations count per node, revocations still arrive; then shared again',
  async (t) => {
    // The master the third node listens on for revocations: losing it makes that node subscribe elsewhere.
    const lost = (await subscriberOf(nodes[2]!, [0, 1, 2]))!;
    const survivors = [0, 1, 2].filter((i) => i !== lost);
    let onLost: { orgId: string; key: string } | undefined;
    let onKept: { orgId: string; key: string } | undefined;
    while (onLost === undefined || onKept === undefined) {
      const made = await newKey();
      if ((await cluster.masterOf(`gateway:ratelimit:requests:{${made.orgId}}`)) === lost) onLost ??= made;
      else onKept ??= made;
    }
    const revocable = await store.keys.create(onKept.orgId, 'to revoke');
    for (const node of nodes) t.equal((await call(node, revocable.key)).status, 200, 'the key is in every auth cache');
    const keptBefore = await requests(onKept.orgId);

    await cluster.stopMaster(lost);
    t.teardown(() => cluster.restartMaster(lost));
    const resubscribing = performance.now();
    while ((await subscriberOf(nodes[2]!, survivors)) === undefined) {
      if (performance.now() - resubscribing > 10_000) throw new Error('the node did not subscribe again');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    t.comment(`the third node listens on another master ${(performance.now() - resubscribing).toFixed(0)} ms after`);

    const answers: Array<{ status: number; ms: number }> = [];
    for (let round = 0; round < 4; round++)
      for (const node of nodes) answers.push(await call(node, onLost.key), await call(node, onKept.key));
    t.same(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
      'every request answered (each node counts the lost organization in its own memory, under the limit)',
    );
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    t.comment(`requests while a master is lost: slowest ${slowest.toFixed(0)} ms`);
    t.ok(slowest < 5000, `no request stalled (slowest ${slowest.toFixed(0)} ms)`);
    t.equal(
      await requests(onKept.orgId),
      keptBefore + 12,
      'the organizations of the other masters still share one counter',
    );

    const revoked = runGateway(env, 'keys', 'revoke', revocable.record.id);
    t.equal(revoked.code, 0, revoked.err);
    await Promise.all(nodes.map((node) => node.logged(heardRevocation(revocable.record.id))));
    t.same(
      await Promise.all(nodes.map(async (node) => (await call(node, revocable.key)).status)),
      [401, 401, 401],
      'a revocation reaches every node, the one that lost its subscription too',
    );

    const back = performance.now();
    await cluster.restartMaster(lost);
    // The master comes back empty (no persistence): the counter starts again, shared once each node asks
    // Redis again (at most a second after its last failure).
    let shared = false;
    let previous = await requests(onLost.orgId);
    while (!shared && performance.now() - back < 15_000) {
      for (const node of nodes) await call(node, onLost.key);
      const now = await requests(onLost.orgId);
      shared = now === previous + 3;
      previous = now;
    }
    t.ok(shared, 'the three nodes count the organization in one counter again');
    t.comment(`shared again ${(performance.now() - back).toFixed(0)} ms after the master was started again`);
  },
);
