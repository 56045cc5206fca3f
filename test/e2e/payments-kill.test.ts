// A payment is credited once across a killed node: the gateway (the `gateway` command, a child process) commits
// the grant of a paid Checkout Session, and is killed with SIGKILL before Stripe has its answer (the answer
// is lost on the way: the fake's delivery goes through a relay that drops it). Stripe retries the event
// until a node answers 2xx; the node restarted on the same store answers it, and grants nothing more: one
// grant, the balance up by the amount once, the payment complete, the balance invariant whole.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { auditBalances } from '../../store/balance-audit.js';
import { openStore, type Store } from '../../store/store.js';
import { startStripeFake, type StripeFake } from '../fakes/stripe-fake.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { signInByEmail } from '../helpers/console-member.js';
import { freePort } from '../helpers/free-port.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startSmtp, type RunningSmtp } from '../helpers/smtp.js';
import { freshStoreOptions } from '../helpers/test-store.js';
import type { StoreOptions } from '../../store/store.js';

const SECRET_KEY = 'sk_test_kill';
const WEBHOOK_SECRET = 'whsec_test_kill';

let smtp: RunningSmtp;
let fake: StripeFake;
let storeOptions: StoreOptions;
let store: Store;
let env: Record<string, string>;
let consoleUrl: string;

t.before(async () => {
  smtp = await startSmtp();
  fake = await startStripeFake({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  storeOptions = await freshStoreOptions();
  const consolePort = await freePort();
  consoleUrl = `http://127.0.0.1:${consolePort}`;
  const configFile = join(mkdtempSync(join(tmpdir(), 'payments-kill-')), 'gateway.yaml');
  writeFileSync(configFile, 'plugins: []\n');
  env = {
    GATEWAY_CONFIG: configFile,
    GATEWAY_DATA_DIR: storeOptions.dataDir,
    ...(storeOptions.postgres === undefined ? {} : { GATEWAY_DATABASE_URL: storeOptions.postgres.url }),
    GATEWAY_UPSTREAM_URL: 'http://127.0.0.1:1/v1',
    GATEWAY_CONSOLE_PORT: String(consolePort),
    GATEWAY_SMTP_URL: smtp.url,
    GATEWAY_STRIPE_SECRET_KEY: SECRET_KEY,
    GATEWAY_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    GATEWAY_STRIPE_API_URL: fake.url,
    GATEWAY_LOG_LEVEL: 'info',
  };
  store = await openStore(storeOptions);
  await store.orgs.create('acme', [{ email: 'ada@acme.test', role: 'admin' }]);
  await store.orgs.addCredits('acme', 1_000_000);
});
t.teardown(async () => {
  await store?.close();
  await fake?.close();
  await smtp?.close();
});

/** The first stdout line of `gateway` whose JSON has `msg`. */
function logLine(gateway: GatewayProcess, msg: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let buffered = '';
    gateway.child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg === msg) resolve(entry);
      }
    });
  });
}

t.test(
  'a node killed between the grant and its answer: Stripe retries, the restarted node grants nothing more',
  async (t) => {
    const first = await startGatewayProcess(env);
    t.teardown(() => first.stop());
    const ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.test');
    const org = await store.orgs.get('acme');
    const opened = await ada.call<{ payment: { checkout_session_id: string } }>(
      'POST',
      `/console/v1/orgs/${org.id}/payments/checkout`,
      { amount: '40' },
    );
    t.equal(opened.status, 201);
    const sessionId = opened.body.payment.checkout_session_id;

    const webhookUrl = `${consoleUrl}/webhooks/stripe`;
    const relay = await startTcpRelay(webhookUrl, { dropAnswers: true });
    t.teardown(() => relay.close());
    fake.webhookUrl = relay.url;
    const credited = logLine(first, 'stripe: payment credited');
    const event = fake.complete(sessionId);
    const entry = await credited;
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    t.equal(entry.session, sessionId);

    const grantsOfSession = () =>
      store.db.selectFrom('credit_grants').select('id').where('checkout_session_id', '=', sessionId).execute();
    t.equal((await grantsOfSession()).length, 1, 'the grant was committed before the kill');
    t.equal((await fake.failed(String(event.id))).status, 0, 'Stripe had no answer');

    // Stripe retries to the endpoint, where the node restarts on the same store.
    fake.webhookUrl = webhookUrl;
    const second = await startGatewayProcess(env);
    t.teardown(() => second.stop());
    second.child.stdout!.resume();
    const answered = await fake.delivered(String(event.id));
    t.match(JSON.parse(answered.body), { received: true, granted: false });

    t.equal((await grantsOfSession()).length, 1, 'one grant');
    t.equal((await store.orgs.get('acme')).balanceMicros, 1_000_000 + 40_000_000, 'the amount added once');
    t.match(await store.payments.list(org.id), [{ checkoutSessionId: sessionId, status: 'complete' }]);
    t.same(
      (await auditBalances(store.db)).map((audit) => audit.discrepancyMicros),
      [0],
      'the balance invariant holds',
    );
  },
);
