// Self-serve top-ups (docs/billing.md, "Payments"), end to end: a gateway with the console, its e-mail going to
// a real SMTP server, and the official Stripe SDK calling a protocol-faithful fake of Stripe's API, which
// signs and delivers its webhooks as Stripe does. A paid Checkout Session grants its credits exactly once
// under retries, replays and concurrent deliveries; a delivery that is forged, stale, malformed or about a
// session we did not make is a 400 that changes nothing; the balance invariant holds after every test.
import t, { type Test } from 'tap';
import { auditBalances } from '../../store/balance-audit.js';
import type { Store } from '../../store/store.js';
import { signInByEmail, type ConsoleMember } from '../helpers/console-member.js';
import { mailTo } from '../helpers/console.js';
import { startSmtp, type RunningSmtp } from '../helpers/smtp.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { startStripeFake, type StripeFake, type StripeObject } from '../fakes/stripe-fake.js';

const SECRET_KEY = 'sk_test_gateway';
const WEBHOOK_SECRET = 'whsec_test_gateway';
const ADMIN_TOKEN = 'admin-token-for-payments-tests';
const YAML = `
plugins: []
console:
  port: 0
  throttle: { window_ms: 900000, per_email: 1000, per_address: 1000 }
payments:
  currency: usd
  min_micros: 5000000
  max_micros: 500000000
`;

let smtp: RunningSmtp;
let fake: StripeFake;
let stack: Stack;
let store: Store;
let consoleUrl: string;
let acme: string;
let ada: ConsoleMember;
let bob: ConsoleMember;

t.before(async () => {
  smtp = await startSmtp();
  fake = await startStripeFake({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  stack = await startStack({
    yaml: YAML,
    env: {
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_STRIPE_SECRET_KEY: SECRET_KEY,
      GATEWAY_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      GATEWAY_STRIPE_API_URL: fake.url,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_ADMIN_PORT: '0',
      ...(await freshStoreEnvironment()),
    },
  });
  consoleUrl = stack.gateway.consoleUrl!;
  fake.webhookUrl = `${consoleUrl}/webhooks/stripe`;
  store = await stack.store();
  acme = (
    await store.orgs.create('acme', [
      { email: 'ada@acme.test', role: 'admin' },
      { email: 'bob@acme.test', role: 'member' },
    ])
  ).id;
  await store.orgs.addCredits(acme, 1_000_000);
  ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.test');
  bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
});
t.teardown(async () => {
  await stack?.close();
  await fake?.close();
  await smtp?.close();
});

const balance = async (): Promise<number> => (await store.orgs.get(acme)).balanceMicros;
const stripeGrants = () =>
  store.db
    .selectFrom('credit_grants')
    .select(['amount_micros', 'stripe_event_id', 'checkout_session_id'])
    .where('checkout_session_id', 'is not', null)
    .execute();

async function invariantHolds(t: Test): Promise<void> {
  const audits = await auditBalances(store.db);
  t.same(
    audits.map((audit) => audit.discrepancyMicros),
    audits.map(() => 0),
    'the balance invariant holds',
  );
}

/** Ada opens a Checkout Session for `amount` credits; its id. */
async function checkout(amount: string): Promise<string> {
  const opened = await ada.call<{ url: string; payment: { checkout_session_id: string } }>(
    'POST',
    `/console/v1/orgs/${acme}/payments/checkout`,
    { amount },
  );
  if (opened.status !== 201) throw new Error(`checkout: ${opened.status} ${JSON.stringify(opened.body)}`);
  return opened.body.payment.checkout_session_id;
}

const REFUSED = 'stripe: webhook delivery refused';
/** The refusals the gateway logged so far. */
const refusals = (): number => stack.logs.filter((line) => line.includes(REFUSED)).length;

t.test(
  "an org admin opens a Checkout Session within the bounds: the SDK's call carries the amount in cents, the metadata and the member, and the answer is the session's URL",
  async (t) => {
    const opened = await ada.call<{ url: string; payment: Record<string, unknown> }>(
      'POST',
      `/console/v1/orgs/${acme}/payments/checkout`,
      { amount: '12.34' },
    );
    t.equal(opened.status, 201);
    const sessionId = String(opened.body.payment.checkout_session_id);
    t.equal(opened.body.url, `${fake.url}/checkout/${sessionId}`);
    t.match(opened.body.payment, { status: 'open', amount: '12.34', amount_micros: 12_340_000, amount_cents: 1234 });
    const call = fake.requests.findLast((request) => request.path === '/v1/checkout/sessions')!;
    t.match(call.params, {
      mode: 'payment',
      line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '1234' } }],
      metadata: { org_id: acme, payment_id: opened.body.payment.id },
      client_reference_id: opened.body.payment.id,
      customer_email: 'ada@acme.test',
      success_url: `${consoleUrl}/#/orgs/${acme}`,
    });
    t.equal(fake.sessions.get(sessionId)!.amount_total, 1234);
    t.equal(await balance(), 1_000_000, 'opening a session grants nothing');
    await invariantHolds(t);
  },
);

t.test(
  'an amount that is not a whole number of cents, out of the bounds or not an amount is a 400 naming amount',
  async (t) => {
    for (const [amount, message] of [
      ['10.005', /whole number of cents/],
      ['4.99', /between 5 and 500 credits/],
      ['500.01', /between 5 and 500 credits/],
      ['-5', /not an amount of credits/],
      [true, /must be an amount of credits/],
    ] as const) {
      const refused = await ada.call<{ error: { field: string; message: string } }>(
        'POST',
        `/console/v1/orgs/${acme}/payments/checkout`,
        { amount },
      );
      t.equal(refused.status, 400, String(amount));
      t.equal(refused.body.error.field, 'amount');
      t.match(refused.body.error.message, message);
    }
    await invariantHolds(t);
  },
);

t.test('Stripe refusing the session is a 503, logged, and leaves no payment behind', async (t) => {
  const before = (await ada.call<{ payments: unknown[] }>('GET', `/console/v1/orgs/${acme}/payments`)).body.payments;
  fake.refuseNextCall();
  const refused = await ada.call<{ error: { code: string; message: string } }>(
    'POST',
    `/console/v1/orgs/${acme}/payments/checkout`,
    { amount: '10' },
  );
  t.equal(refused.status, 503);
  t.match(refused.body.error.message, /could not be started at Stripe/);
  await stack.logged((entry) => entry.msg === 'stripe: no checkout session' && /live charges/.test(String(entry.err)));
  const rows = await store.db.selectFrom('payments').select('id').where('checkout_session_id', 'is', null).execute();
  t.same(rows, [], 'no payment without a session');
  const after = (await ada.call<{ payments: unknown[] }>('GET', `/console/v1/orgs/${acme}/payments`)).body.payments;
  t.same(after, before);
});

t.test('only an organization admin adds credits; a member reads the payments', async (t) => {
  const refused = await bob.call('POST', `/console/v1/orgs/${acme}/payments/checkout`, { amount: '10' });
  t.equal(refused.status, 403);
  const listed = await bob.call<{ payments: unknown[]; min: string; max: string }>(
    'GET',
    `/console/v1/orgs/${acme}/payments`,
  );
  t.equal(listed.status, 200);
  t.match(listed.body, { enabled: true, currency: 'usd', min: '5', max: '500' });
});

t.test(
  'the signed checkout.session.completed grants the credits once, the payment is listed complete, and the member who paid gets a receipt',
  async (t) => {
    const before = await balance();
    const sessionId = await checkout('25');
    const mailsBefore = smtp.received.length;
    const event = fake.complete(sessionId);
    const delivery = await fake.delivered(String(event.id));
    t.equal(delivery.status, 200);
    t.match(JSON.parse(delivery.body), { received: true, granted: true });
    t.equal(await balance(), before + 25_000_000);
    t.equal((await store.orgs.get(acme)).spentMicros, 0, 'lifetime spend is not touched');
    t.match(
      (await stripeGrants()).filter((grant) => grant.checkout_session_id === sessionId),
      [{ amount_micros: 25_000_000, stripe_event_id: event.id }],
    );
    const listed = await ada.call<{ payments: Array<Record<string, unknown>> }>(
      'GET',
      `/console/v1/orgs/${acme}/payments`,
    );
    t.match(listed.body.payments[0], { checkout_session_id: sessionId, status: 'complete', amount: '25' });
    const receipt = await mailTo(smtp, 'ada@acme.test', mailsBefore);
    t.match(receipt.headers.subject, /Receipt: 25 credits for acme/);
    t.match(receipt.text, /payment of 25\.00 USD was received/);
    const [entry] = await store.audit.list(acme, 1);
    t.match(entry, { action: 'credits.added', actor: 'stripe', detail: { amount_micros: 25_000_000 } });
    const admin = await fetch(`${stack.gateway.adminUrl}/admin/v1/orgs/acme/payments`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    t.match(((await admin.json()) as { payments: unknown[] }).payments[0], { checkout_session_id: sessionId });
    await invariantHolds(t);
  },
);

t.test("Stripe's retries after no answer grant once", async (t) => {
  const before = await balance();
  const sessionId = await checkout('7');
  const webhookUrl = fake.webhookUrl;
  fake.webhookUrl = 'http://127.0.0.1:1/webhooks/stripe';
  const event = fake.complete(sessionId);
  // The first attempt finds nothing listening; the endpoint comes back and a retry lands.
  t.equal((await fake.failed(String(event.id))).status, 0);
  fake.webhookUrl = webhookUrl;
  await fake.delivered(String(event.id));
  t.equal(await balance(), before + 7_000_000);
  t.equal((await stripeGrants()).filter((grant) => grant.checkout_session_id === sessionId).length, 1);
  await invariantHolds(t);
});

t.test('a replayed event (delivered again after its grant) grants nothing more', async (t) => {
  const sessionId = await checkout('9');
  const event = fake.complete(sessionId);
  await fake.delivered(String(event.id));
  const after = await balance();
  const again = await fake.deliver(event);
  t.equal(again.status, 200, 'acknowledged, so Stripe stops retrying');
  t.match(JSON.parse(again.body), { received: true, granted: false });
  t.equal(await balance(), after);
  t.equal((await stripeGrants()).filter((grant) => grant.checkout_session_id === sessionId).length, 1);
  await invariantHolds(t);
});

t.test('two deliveries of the event at once grant once', async (t) => {
  const before = await balance();
  const sessionId = await checkout('11');
  const session = fake.sessions.get(sessionId)!;
  Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: 'pi_twice' });
  const event = fake.event('checkout.session.completed', session);
  const answers = await Promise.all([fake.deliver(event), fake.deliver(event)]);
  t.same(
    answers.map((answer) => answer.status),
    [200, 200],
  );
  t.same(answers.map((answer) => (JSON.parse(answer.body) as { granted: boolean }).granted).sort(), [false, true]);
  t.equal(await balance(), before + 11_000_000);
  t.equal((await stripeGrants()).filter((grant) => grant.checkout_session_id === sessionId).length, 1);
  await invariantHolds(t);
});

/** A paid-session event for a new session of Ada's, not delivered. */
async function paidEvent(amount: string, change: StripeObject = {}): Promise<StripeObject> {
  const sessionId = await checkout(amount);
  const session = { ...fake.sessions.get(sessionId)!, status: 'complete', payment_status: 'paid', ...change };
  return fake.event('checkout.session.completed', session);
}

/** Refused with a 400 naming `field`, logged, and nothing changed. */
async function refusedAndUnchanged(
  t: Test,
  deliver: () => Promise<{ status: number; body: string }>,
  field: string,
  reason: RegExp,
): Promise<void> {
  const [before, grants, logged] = [await balance(), (await stripeGrants()).length, refusals()];
  const answer = await deliver();
  t.equal(answer.status, 400);
  const { error } = JSON.parse(answer.body) as { error: { field: string; message: string } };
  t.equal(error.field, field);
  t.match(error.message, reason);
  await stack.logged((entry) => entry.msg === REFUSED && entry.reason === error.message);
  t.equal(refusals(), logged + 1, 'the refusal is logged');
  t.equal(await balance(), before, 'the balance is unchanged');
  t.equal((await stripeGrants()).length, grants, 'no grant');
  await invariantHolds(t);
}

t.test('a forged signature is a 400 that changes nothing', async (t) => {
  const event = await paidEvent('5');
  await refusedAndUnchanged(t, () => fake.deliver(event, { secret: 'whsec_forged' }), 'stripe-signature', /signature/);
});

t.test('a stale timestamp (beyond the five minutes tolerance) is a 400 that changes nothing', async (t) => {
  const event = await paidEvent('5');
  const timestamp = Math.floor(Date.now() / 1000) - 301;
  await refusedAndUnchanged(t, () => fake.deliver(event, { timestamp }), 'stripe-signature', /tolerance/);
});

t.test('a body changed after signing (re-serialised) is a 400 that changes nothing', async (t) => {
  const event = await paidEvent('5');
  const signed = JSON.stringify(event, null, 2);
  await refusedAndUnchanged(
    t,
    () => fake.deliverRaw(JSON.stringify(event), fake.sign(signed)),
    'stripe-signature',
    /signature/,
  );
});

t.test('a malformed payload with a valid signature is a 400 that changes nothing', async (t) => {
  await refusedAndUnchanged(
    t,
    () => fake.deliverRaw('{"id": "evt_1",', fake.sign('{"id": "evt_1",')),
    '(body)',
    /not JSON/,
  );
  const event = await paidEvent('5', { amount_total: 'five' });
  await refusedAndUnchanged(t, () => fake.deliver(event), 'data.object.amount_total', /amount_total/);
});

t.test('a session we did not make is a 400 that changes nothing', async (t) => {
  const event = await paidEvent('5', { id: 'cs_test_not_ours' });
  await refusedAndUnchanged(t, () => fake.deliver(event), 'data.object', /unknown checkout session/);
});

t.test('an amount other than the session was made for is a 400 that changes nothing', async (t) => {
  const event = await paidEvent('5', { amount_total: 50_000 });
  await refusedAndUnchanged(t, () => fake.deliver(event), 'data.object', /amount_total 50000/);
});

t.test('another organization in the metadata is a 400 that changes nothing', async (t) => {
  const event = await paidEvent('5');
  const session = (event.data as { object: StripeObject }).object;
  session.metadata = { ...(session.metadata as StripeObject), org_id: 'org_someone_else' };
  await refusedAndUnchanged(t, () => fake.deliver(event), 'data.object', /metadata.org_id/);
});

t.test('a session completed unpaid grants nothing until its payment succeeds', async (t) => {
  const before = await balance();
  const sessionId = await checkout('6');
  const completed = fake.complete(sessionId, { paymentStatus: 'unpaid' });
  t.match(JSON.parse((await fake.delivered(String(completed.id))).body), { granted: false });
  t.equal(await balance(), before);
  const session = { ...fake.sessions.get(sessionId)!, payment_status: 'paid' };
  const succeeded = await fake.deliver(fake.event('checkout.session.async_payment_succeeded', session));
  t.match(JSON.parse(succeeded.body), { granted: true });
  t.equal(await balance(), before + 6_000_000);
  await invariantHolds(t);
});

t.test('an expired session is listed expired; other event types are acknowledged and ignored', async (t) => {
  const before = await balance();
  const sessionId = await checkout('8');
  const session = { ...fake.sessions.get(sessionId)!, status: 'expired' };
  t.equal((await fake.deliver(fake.event('checkout.session.expired', session))).status, 200);
  const listed = await ada.call<{ payments: Array<Record<string, unknown>> }>(
    'GET',
    `/console/v1/orgs/${acme}/payments`,
  );
  t.match(
    listed.body.payments.find((payment) => payment.checkout_session_id === sessionId),
    { status: 'expired' },
  );
  const other = await fake.deliver(fake.event('customer.created', { id: 'cus_1', object: 'customer' }));
  t.equal(other.status, 200);
  t.match(JSON.parse(other.body), { received: true, ignored: true });
  t.equal(await balance(), before);
  await invariantHolds(t);
});

t.test(
  'with the Stripe keys unset, payments are off: the list says so, a checkout is a 404 that says so, and there is no webhook',
  async (t) => {
    const off = await startStack({
      yaml: 'plugins: []\nconsole:\n  port: 0\n',
      env: { GATEWAY_SMTP_URL: smtp.url, ...(await freshStoreEnvironment()) },
    });
    t.teardown(() => off.close());
    const offStore = await off.store();
    const org = await offStore.orgs.create('solo', [{ email: 'sol@solo.test', role: 'admin' }]);
    const sol = await signInByEmail(off.gateway.consoleUrl!, smtp, 'sol@solo.test');
    const listed = await sol.call('GET', `/console/v1/orgs/${org.id}/payments`);
    t.equal(listed.status, 200);
    t.match(listed.body, { enabled: false, payments: [] });
    const opened = await sol.call<{ error: { message: string } }>(
      'POST',
      `/console/v1/orgs/${org.id}/payments/checkout`,
      { amount: '10' },
    );
    t.equal(opened.status, 404);
    t.match(opened.body.error.message, /payments are off/);
    const webhook = await fetch(`${off.gateway.consoleUrl}/webhooks/stripe`, { method: 'POST', body: '{}' });
    t.equal(webhook.status, 404);
  },
);
