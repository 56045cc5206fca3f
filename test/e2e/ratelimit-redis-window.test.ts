// The Redis rate-limit window on a real redis-server: the rules every backend keeps; each phase of a
// call is one command (one Lua script, so one round trip), a refused input estimate too; the keys of an
// organization carry its id as a Cluster hash tag and expire with the window; without Redis, the node
// counts in its own memory.
import { Redis } from 'ioredis';
import t from 'tap';
import { RedisWindow, RETRY_REDIS_AFTER_MS } from '../../plugins/ratelimit/redis-window.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { windowRules } from '../helpers/window-rules.js';

let redis: RunningRedis;
let client: Redis;
/** A second connection that hears every command (MONITOR). */
let monitor: Redis;
t.before(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { enableAutoPipelining: true });
  monitor = await client.monitor();
});
t.teardown(async () => {
  monitor.disconnect();
  await client.quit();
  await redis.close();
});

let orgs = 0;
const newOrg = (): string => `org_${++orgs}`;
windowRules(t, async () => ({ window: new RedisWindow(client, 'gateway:', 60), orgId: newOrg() }));

let markers = 0;
/** The commands the gateway's client sent Redis while `operation` ran (not those a script ran inside). */
async function commandsOf(operation: () => Promise<unknown>): Promise<string[]> {
  // Redis runs commands one at a time and the monitor hears them in that order, late: what it hears
  // between two markers the client sent is what the client sent between them.
  const start = `start-${++markers}`;
  const end = `end-${markers}`;
  const seen: string[] = [];
  let started = false;
  const ended = new Promise<void>((resolve) => {
    const listener = (_time: string, args: string[], source: string): void => {
      const [command = '', argument] = args;
      if (source === 'lua') return;
      if (command.toLowerCase() === 'echo' && argument === start) started = true;
      else if (command.toLowerCase() === 'echo' && argument === end) {
        monitor.off('monitor', listener);
        resolve();
      } else if (started) seen.push(command.toLowerCase());
    };
    monitor.on('monitor', listener);
  });
  await client.echo(start);
  await operation();
  await client.echo(end);
  await ended;
  return seen;
}

t.test('each phase of a call is one command to Redis: start, input estimate (refused too), settlement', async (t) => {
  const window = new RedisWindow(client, 'gateway:', 60);
  const orgId = newOrg();
  // The first use of each script on a connection sends its text (EVAL); after that, its SHA.
  await window.open(orgId, 0);
  await window.chargeInput(orgId, 0, 10);
  await window.settle(orgId, 0, 0);

  t.same(await commandsOf(() => window.open(orgId, 1)), ['evalsha'], 'the start: a request and two reads');
  t.same(await commandsOf(() => window.chargeInput(orgId, 8, 10)), ['evalsha'], 'an estimate that fits');
  t.same(
    await commandsOf(async () => t.match(await window.chargeInput(orgId, 8, 10), { admitted: false })),
    ['evalsha'],
    'an estimate refused and given back',
  );
  t.same(await commandsOf(() => window.settle(orgId, -3, 40)), ['evalsha'], 'input reconciliation and output charge');
  t.same(await commandsOf(() => window.settle(orgId, undefined, undefined)), [], 'nothing to settle: no command');
});

t.test(
  "an organization's three keys carry its id as a hash tag (one Cluster slot) and expire with the window",
  async (t) => {
    const window = new RedisWindow(client, 'gateway:', 60);
    const orgId = newOrg();
    await window.open(orgId, 1);
    for (const kind of ['requests', 'input', 'output']) {
      const key = `gateway:ratelimit:${kind}:{${orgId}}`;
      t.equal(await client.get(key), kind === 'requests' ? '1' : '0', key);
      const ttl = await client.pttl(key);
      t.ok(ttl > 0 && ttl <= 60_000, `${key} expires with the window (${ttl} ms left)`);
    }
  },
);

t.test('a counter whose key expired starts a new window from zero', async (t) => {
  const window = new RedisWindow(client, 'gateway:', 60);
  const orgId = newOrg();
  await window.open(orgId, 1);
  await window.open(orgId, 1);
  await client.del(`gateway:ratelimit:requests:{${orgId}}`);
  const counts = await window.open(orgId, 1);
  t.equal(counts.requests.used, 1);
  t.ok(counts.requests.resetAt > Date.now() + 59_000, 'a whole window ahead');
});

t.test('while Redis is not ready, a node counts in its own memory', async (t) => {
  const gone = new Redis(redis.url, { lazyConnect: true });
  t.teardown(() => gone.disconnect());
  const window = new RedisWindow(gone, 'gateway:', 60);
  const orgId = newOrg();
  t.equal((await window.open(orgId, 1)).requests.used, 1);
  t.equal((await window.open(orgId, 1)).requests.used, 2);
  t.match(await window.chargeInput(orgId, 5, 10), { admitted: true, input: { used: 5 } });
  t.equal(await client.exists(`gateway:ratelimit:requests:{${orgId}}`), 0, 'nothing reached Redis');
});

t.test(
  'after a script of an organization fails, it counts in memory without asking Redis, then Redis again a second later',
  async (t) => {
    const window = new RedisWindow(client, 'gateway:', 60);
    const [broken, other] = [newOrg(), newOrg()];
    // A counter that is not a number makes the script fail, as a lost master would.
    await client.set(`gateway:ratelimit:requests:{${broken}}`, 'not a number');
    t.equal((await window.open(broken, 1)).requests.used, 1, 'the failed call is counted in memory');
    t.same(await commandsOf(() => window.open(broken, 1)), [], 'the next call does not ask Redis');
    t.same(await commandsOf(() => window.open(other, 1)), ['evalsha'], 'other organizations still do');

    await client.del(`gateway:ratelimit:requests:{${broken}}`);
    const deadline = Date.now() + 10 * RETRY_REDIS_AFTER_MS;
    while ((await client.exists(`gateway:ratelimit:requests:{${broken}}`)) === 0 && Date.now() < deadline) {
      await window.open(broken, 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.equal((await window.open(broken, 1)).requests.used, 2, 'counted in Redis again');
  },
);
