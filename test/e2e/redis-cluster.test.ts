// Every Redis user on a real Redis Cluster of three masters (test/helpers/redis-cluster.ts), each
// "node" here a client of its own as a gateway process has: the rate-limit window keeps its rules and
// is exact across nodes, the prompt-cache registry reads in one slot per organization, the e-mail lock
// lets one node send, revocations cross nodes; and when one master is lost, nothing waits long, the
// organizations of its slots count per node, and they share their counters again once it is back.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { MailNotifier } from '../../notify/mail-notifier.js';
import { RedisRegistry } from '../../plugins/promptcache/redis-registry.js';
import { RedisWindow, RETRY_REDIS_AFTER_MS } from '../../plugins/ratelimit/redis-window.js';
import { COMMAND_TIMEOUT_MS, createRedisClient, redisReady, type RedisClient } from '../../store/redis-client.js';
import { RedisRevocationBus } from '../../store/redis-revocations.js';
import { openStore } from '../../store/store.js';
import { startRedisCluster, type RunningRedisCluster } from '../helpers/redis-cluster.js';
import { startSmtp } from '../helpers/smtp.js';
import { windowRules } from '../helpers/window-rules.js';

let cluster: RunningRedisCluster;
/** Two gateway nodes' clients. */
let nodes: [RedisClient, RedisClient];
t.before(async () => {
  cluster = await startRedisCluster();
  nodes = [
    createRedisClient({ cluster: cluster.urls }, { autoPipelining: true }),
    createRedisClient({ cluster: cluster.urls }, { autoPipelining: true }),
  ];
  // A lost master is reported as errors on the node connections; the users handle what fails.
  for (const node of nodes) node.on('error', () => undefined);
  await Promise.all(nodes.map((node) => new Promise((resolve) => node.once('ready', resolve))));
});
t.teardown(async () => {
  await Promise.all(nodes.map((node) => node.quit().catch(() => node.disconnect())));
  await cluster.close();
});

let orgs = 0;
const newOrg = (): string => `org_${++orgs}`;
const requestsKey = (orgId: string): string => `gateway:ratelimit:requests:{${orgId}}`;

/** A new organization whose counters live on master `i` (or, with `not`, on any other master). */
async function orgOn(i: number, not = false): Promise<string> {
  for (;;) {
    const orgId = newOrg();
    if (((await cluster.masterOf(requestsKey(orgId))) === i) !== not) return orgId;
  }
}

t.test('the rules every window keeps, on a Redis Cluster', async (t) => {
  windowRules(t, async () => ({ window: new RedisWindow(nodes[0], 'gateway:', 60), orgId: newOrg() }));
});

t.test('two nodes on a cluster admit exactly the limit of each organization, whichever master serves it', async (t) => {
  const LIMIT = 20;
  const windows = nodes.map((node) => new RedisWindow(node, 'gateway:', 60));
  const orgIds = Array.from({ length: 6 }, newOrg);
  const masters = new Set(await Promise.all(orgIds.map((orgId) => cluster.masterOf(requestsKey(orgId)))));
  t.ok(masters.size > 1, `the organizations' counters are on ${masters.size} masters`);
  const admitted = await Promise.all(
    orgIds.map(async (orgId) => {
      const calls = Array.from({ length: 3 * LIMIT }, (_, i) => windows[i % 2]!.open(orgId, 1));
      return (await Promise.all(calls)).filter((counts) => counts.requests.used <= LIMIT).length;
    }),
  );
  t.same(
    admitted,
    orgIds.map(() => LIMIT),
    `${LIMIT} of ${3 * LIMIT} concurrent calls per organization`,
  );
});

t.test(
  "the prompt-cache registry: what one node writes the other reads, in one MGET (the organization's slot)",
  async (t) => {
    const [writer, reader] = nodes.map((node) => new RedisRegistry(node, 'gateway:'));
    const orgId = newOrg();
    const expiresAt = Date.now() + 300_000;
    const hashes = Array.from({ length: 20 }, (_, i) => `prefix-${i}`);
    await writer!.register(
      orgId,
      hashes.map((hash, i) => ({ hash, tokens: 1024 + i, ttl: '5m' as const, expiresAt })),
    );
    // Twenty keys without a shared hash tag would spread over the three masters: a CROSSSLOT error.
    const found = await reader!.lookup(orgId, [...hashes, 'never-written']);
    t.same([...found.keys()], hashes, 'every prefix written, none other');
    t.same(found.get('prefix-3'), { tokens: 1027, ttl: '5m', expiresAt });
    t.equal(await nodes[1].exists(`gateway:promptcache:{${orgId}}:prefix-0`), 1, 'the key carries the hash tag');
  },
);

t.test('the e-mail lock: two nodes told of the same block on a cluster send one e-mail', async (t) => {
  const smtp = await startSmtp();
  const store = await openStore({ dataDir: join(mkdtempSync(join(tmpdir(), 'gateway-cluster-mail-')), 'data') });
  t.teardown(async () => {
    await store.close();
    await smtp.close();
  });
  const { id: orgId } = await store.orgs.create('acme', [{ email: 'ada@acme.test', role: 'admin' }]);
  const senders = nodes.map(
    (node) =>
      new MailNotifier({
        url: smtp.url,
        from: 'gateway@example.test',
        store: async () => store,
        redis: () => node,
        keyPrefix: 'gateway:',
      }),
  );
  const notice = { orgId, limit: 1000, used: 1001, resetAt: new Date(Date.now() + 60_000) };
  for (const sender of senders) sender.outputTokensBlocked(notice);
  await Promise.all(senders.map((sender) => sender.close()));
  t.equal(smtp.received.length, 1, 'one e-mail from two nodes');
  t.equal(await nodes[0].exists(`gateway:mail:output-blocked:${orgId}`), 1, 'the claim is in the cluster');
});

t.test('a revocation published on one node reaches the other within 1 s', async (t) => {
  const buses = await Promise.all(
    [0, 1].map(() => RedisRevocationBus.connect({ target: { cluster: cluster.urls }, prefix: 'gateway:' })),
  );
  t.teardown(() => Promise.all(buses.map((bus) => bus.close())));
  const delays: number[] = [];
  for (let i = 0; i < 5; i++) {
    const keyId = `key_${i}`;
    const heard = new Promise<number>((resolve) => {
      const stop = buses[1]!.subscribe((id) => {
        if (id !== keyId) return;
        stop();
        resolve(performance.now());
      });
    });
    const published = performance.now();
    await buses[0]!.publish(keyId);
    delays.push((await heard) - published);
  }
  const slowest = Math.max(...delays);
  t.comment(`revocation from one node to another over the cluster: ${delays.map((ms) => ms.toFixed(1)).join(', ')} ms`);
  t.ok(slowest < 1000, `within 1 s (slowest ${slowest.toFixed(1)} ms)`);
});

t.test(
  'a lost master: no call waits long, its organizations count per node, and share again once it is back',
  async (t) => {
    const windows = nodes.map((node) => new RedisWindow(node, 'gateway:', 60)) as [RedisWindow, RedisWindow];
    const lost = await orgOn(0);
    const kept = await orgOn(0, true);
    await windows[0].open(lost, 1);
    await windows[1].open(lost, 1);

    await cluster.stopMaster(0);
    t.teardown(() => cluster.restartMaster(0));
    // Every call answers, each within the command timeout; the first of each organization and node
    // waits for its command to fail, the next ones count in memory at once.
    const stalls: number[] = [];
    const timed = async <T>(call: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await call();
      } finally {
        stalls.push(performance.now() - started);
      }
    };
    const lostCounts: number[][] = [[], []];
    const keptCounts: number[] = [];
    for (let i = 0; i < 6; i++) {
      for (const n of [0, 1] as const) {
        lostCounts[n]!.push((await timed(() => windows[n].open(lost, 1))).requests.used);
        keptCounts.push((await timed(() => windows[n].open(kept, 1))).requests.used);
      }
    }
    t.same(
      lostCounts,
      [
        [1, 2, 3, 4, 5, 6],
        [1, 2, 3, 4, 5, 6],
      ],
      'the lost slot: each node counts alone',
    );
    t.same(keptCounts, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 'the other slots: still one shared counter');
    t.ok(redisReady(nodes[0]), 'the client stays ready: the other masters answer');
    const slowest = Math.max(...stalls);
    t.comment(
      `calls while a master is lost: slowest ${slowest.toFixed(0)} ms (command timeout ${COMMAND_TIMEOUT_MS} ms)`,
    );
    t.ok(slowest < COMMAND_TIMEOUT_MS, `no call waited the command timeout (slowest ${slowest.toFixed(0)} ms)`);

    const back = performance.now();
    await cluster.restartMaster(0);
    // Each node asks Redis again RETRY_REDIS_AFTER_MS after its last failure: until then, memory.
    const deadline = Date.now() + 10 * RETRY_REDIS_AFTER_MS;
    let shared = false;
    while (!shared && Date.now() < deadline) {
      const first = (await windows[0].open(lost, 1)).requests.used;
      const second = (await windows[1].open(lost, 1)).requests.used;
      shared = second === first + 1 && Number(await nodes[0].get(requestsKey(lost))) === second;
      if (!shared) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.ok(shared, 'both nodes count the organization in one Redis counter again');
    t.comment(`shared again ${(performance.now() - back).toFixed(0)} ms after the master was started again`);
  },
);
