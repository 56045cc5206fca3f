// E-mail notices of output-token blocking (spec §6.4, §8.3): the organization's admins and members get
// one e-mail, at most once per hour, over a real SMTP round trip on loopback; with Redis, several
// nodes send once; a mail server that is down is logged and never throws.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import t from 'tap';
import { openServices } from '../../services/services.js';
import { loadConfig } from '../../config/load.js';
import { LogNotifier } from '../../notify/log-notifier.js';
import { MailNotifier, type MailNotifierOptions } from '../../notify/mail-notifier.js';
import { createLogger } from '../../http/log.js';
import { openStore, type Store } from '../../store/store.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { startSmtp, SMTP_USER, type RunningSmtp } from '../helpers/smtp.js';

let smtp: RunningSmtp;
let redis: RunningRedis;
let store: Store;
let dataDir: string;
let acme: string;
let globex: string;
t.before(async () => {
  [smtp, redis] = await Promise.all([startSmtp(), startRedis()]);
  dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-mail-')), 'data');
  store = await openStore({ dataDir });
  acme = (
    await store.orgs.create('acme', [
      { email: 'ada@acme.test', role: 'admin' },
      { email: 'bob@acme.test', role: 'member' },
    ])
  ).id;
  globex = (await store.orgs.create('globex', [{ email: 'hank@globex.test', role: 'admin' }])).id;
});
t.teardown(async () => {
  await store.close();
  await Promise.all([smtp.close(), redis.close()]);
});
t.beforeEach(() => {
  smtp.received.length = 0;
});

const resetAt = new Date('2030-01-02T03:04:00.000Z');
const notice = (orgId: string) => ({ orgId, limit: 400_000, used: 401_234, resetAt });

function capture(): { lines: () => Array<Record<string, unknown>>; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return {
    lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    log: createLogger('debug', destination),
  };
}

function notifier(options: Partial<MailNotifierOptions> = {}): MailNotifier {
  return new MailNotifier({
    url: smtp.url,
    from: 'gateway@example.test',
    store: async () => store,
    redis: () => undefined,
    keyPrefix: 'gateway:',
    ...options,
  });
}

t.test(
  'a block sends one e-mail to all the members, admins and members, with the limit, usage and reset time',
  async (t) => {
    const mailer = notifier();
    t.equal(mailer.outputTokensBlocked(notice(acme)), undefined, 'returns at once');
    await mailer.close();
    t.equal(smtp.received.length, 1);
    const [mail] = smtp.received;
    t.same(mail!.to.sort(), ['ada@acme.test', 'bob@acme.test']);
    t.equal(mail!.from, 'gateway@example.test');
    t.match(mail!.headers.to, /ada@acme\.test/);
    t.match(mail!.headers.to, /bob@acme\.test/);
    t.equal(mail!.headers.subject, '[gateway] acme: output-token limit reached');
    t.match(mail!.text, /401,234 output tokens used of 400,000/);
    t.match(mail!.text, /2030-01-02T03:04:00\.000Z/);
    t.match(mail!.text, /resume in the next window/);
    t.match(mail!.text, /at most once every hour/);
  },
);

t.test('twice within the hour: one e-mail; after the hour: another', async (t) => {
  let now = 1_000_000;
  const mailer = notifier({ now: () => now });
  mailer.outputTokensBlocked(notice(acme));
  mailer.outputTokensBlocked(notice(acme));
  now += 59 * 60_000;
  mailer.outputTokensBlocked(notice(acme));
  await mailer.close();
  t.equal(smtp.received.length, 1, 'one e-mail within the hour');

  const later = notifier({ now: () => now });
  later.outputTokensBlocked(notice(acme));
  now += 61 * 60_000;
  later.outputTokensBlocked(notice(acme));
  await later.close();
  t.equal(smtp.received.length, 3, 'the next hour gets its own e-mail');
});

t.test('another organization gets its own e-mail, to its own members only', async (t) => {
  const mailer = notifier();
  mailer.outputTokensBlocked(notice(acme));
  mailer.outputTokensBlocked(notice(globex));
  await mailer.close();
  t.equal(smtp.received.length, 2);
  const toGlobex = smtp.received.find((mail) => mail.headers.subject?.includes('globex'));
  t.same(toGlobex?.to, ['hank@globex.test']);
});

t.test('with Redis, two nodes notified of the same block send one e-mail', async (t) => {
  const clients = [new Redis(redis.url), new Redis(redis.url)];
  t.teardown(() => Promise.all(clients.map((client) => client.quit())));
  const prefix = `mail-test-${Date.now()}:`;
  const nodes = clients.map((client) => notifier({ redis: () => client, keyPrefix: prefix }));
  nodes[0]!.outputTokensBlocked(notice(acme));
  nodes[1]!.outputTokensBlocked(notice(acme));
  await Promise.all(nodes.map((node) => node.close()));
  t.equal(smtp.received.length, 1, 'one e-mail from two nodes');
  const ttl = await clients[0]!.pttl(`${prefix}mail:output-blocked:${acme}`);
  t.ok(ttl > 3_500_000 && ttl <= 3_600_000, `the claim lives an hour (pttl ${ttl})`);

  // A third node, later in the hour, still sends nothing; another org still gets its e-mail.
  const third = notifier({ redis: () => clients[1], keyPrefix: prefix });
  third.outputTokensBlocked(notice(acme));
  third.outputTokensBlocked(notice(globex));
  await third.close();
  t.equal(smtp.received.length, 2);
  t.same(smtp.received[1]!.to, ['hank@globex.test']);
});

t.test('an SMTP server that is down: logged, never thrown, and the next block tries again', async (t) => {
  const { lines, log } = capture();
  const redisClient = new Redis(redis.url);
  t.teardown(() => redisClient.quit());
  const prefix = `mail-down-${Date.now()}:`;
  const down = notifier({ url: `smtp://${SMTP_USER}:x@127.0.0.1:1`, log, redis: () => redisClient, keyPrefix: prefix });
  t.doesNotThrow(() => down.outputTokensBlocked(notice(acme)));
  await down.close();
  const errors = lines().filter((line) => line.msg === 'mail: the output-limit notice could not be sent');
  t.equal(errors.length, 1);
  t.equal(errors[0]!.org, acme);
  t.match(errors[0]!.err, /ECONNREFUSED|connect/i);
  t.equal(await redisClient.exists(`${prefix}mail:output-blocked:${acme}`), 0, 'the claim is released');

  const again = notifier({ log, redis: () => redisClient, keyPrefix: prefix });
  again.outputTokensBlocked(notice(acme));
  await again.close();
  t.equal(smtp.received.length, 1, 'the next block, with the server back, sends the e-mail');
});

t.test('wrong SMTP credentials are logged, not thrown', async (t) => {
  const { lines, log } = capture();
  const mailer = notifier({ url: smtp.url.replace(':test-pass@', ':wrong@'), log });
  mailer.outputTokensBlocked(notice(acme));
  await mailer.close();
  t.equal(smtp.received.length, 0);
  t.ok(
    lines().some(
      (line) => line.msg === 'mail: the output-limit notice could not be sent' && /Invalid/i.test(String(line.err)),
    ),
  );
});

t.test('the services pick e-mail when mail.url (or GATEWAY_SMTP_URL) is set, the log otherwise', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'gateway-mail-config-')), 'gateway.yaml');
  writeFileSync(file, 'mail:\n  from: alerts@example.test\nplugins: []\n');
  const withMail = loadConfig(file, { GATEWAY_SMTP_URL: smtp.url, GATEWAY_DATA_DIR: dataDir });
  const services = await openServices(withMail.config, { dataDir });
  t.type(services.notifier, MailNotifier);
  services.notifier.outputTokensBlocked(notice(globex));
  await services.close();
  t.equal(smtp.received.length, 1);
  t.equal(smtp.received[0]!.from, 'alerts@example.test');
  t.same(smtp.received[0]!.to, ['hank@globex.test']);

  const without = await openServices(loadConfig(file, { GATEWAY_DATA_DIR: dataDir }).config, { dataDir });
  t.type(without.notifier, LogNotifier);
  await without.close();
});
