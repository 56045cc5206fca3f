// Self-serve top-ups in the store (store/payments.ts): a paid Checkout Session grants its credits once, as a
// credit_grants row tied to the session and the event, whatever Stripe delivers and however often; a session
// that is not the one we made changes nothing; lifetime spend (the tiers) is not touched; the balance
// invariant holds after every test.
import t, { type Test } from 'tap';
import { auditBalances } from '../../../store/balance-audit.js';
import type { PaidSession, Payment } from '../../../store/payments.js';
import { openStore, type Store } from '../../../store/store.js';
import { freshStoreOptions } from '../../helpers/test-store.js';

interface Opened {
  store: Store;
  orgId: string;
  payment: Payment;
  paid: PaidSession;
}

/** A store with `acme` (1 credit already), and an open $25.00 payment of Ada's with its session. */
async function openedPayment(t: Test): Promise<Opened> {
  const store = await openStore(await freshStoreOptions());
  t.teardown(() => store.close());
  const org = await store.orgs.create('acme', [{ email: 'ada@acme.test', role: 'admin' }]);
  await store.orgs.addCredits(org.id, 1_000_000);
  const payment = await store.payments.open({
    orgId: org.id,
    amountCents: 2500,
    currency: 'usd',
    createdBy: 'ada@acme.test',
  });
  await store.payments.attachSession(payment.id, 'cs_test_1');
  const paid: PaidSession = {
    eventId: 'evt_1',
    sessionId: 'cs_test_1',
    paymentIntent: 'pi_1',
    amountCents: 2500,
    currency: 'usd',
    orgId: org.id,
    paymentId: payment.id,
  };
  return { store, orgId: org.id, payment, paid };
}

async function invariantHolds(t: Test, store: Store): Promise<void> {
  const audits = await auditBalances(store.db);
  t.same(
    audits.map((audit) => audit.discrepancyMicros),
    audits.map(() => 0),
    'the balance invariant holds',
  );
}

async function grantsOf(store: Store, orgId: string) {
  return store.db
    .selectFrom('credit_grants')
    .select(['amount_micros', 'note', 'stripe_event_id', 'checkout_session_id'])
    .where('org_id', '=', orgId)
    .where('checkout_session_id', 'is not', null)
    .execute();
}

t.test('a paid session grants N cents as N × 10,000 micro-credits, once, tied to the session and event', async (t) => {
  const { store, orgId, payment, paid } = await openedPayment(t);
  t.equal(payment.amountMicros, 25_000_000);
  const granted = await store.payments.grant(paid);
  t.equal(granted.outcome, 'granted');
  t.same(await grantsOf(store, orgId), [
    { amount_micros: 25_000_000, note: 'stripe checkout', stripe_event_id: 'evt_1', checkout_session_id: 'cs_test_1' },
  ]);
  const org = await store.orgs.get(orgId);
  t.equal(org.balanceMicros, 26_000_000);
  t.equal(org.spentMicros, 0, 'lifetime spend (the tier) is not touched by a top-up');
  const [listed] = await store.payments.list(orgId);
  t.match(listed, { id: payment.id, status: 'complete', stripeEventId: 'evt_1', paymentIntent: 'pi_1' });
  t.ok(listed!.completedAt instanceof Date);
  const [entry] = await store.audit.list(orgId, 1);
  t.match(entry, {
    action: 'credits.added',
    actor: 'stripe',
    subject: payment.id,
    detail: { amount_micros: 25_000_000, checkout_session: 'cs_test_1' },
  });
  await invariantHolds(t, store);
});

t.test('a replayed event grants nothing more', async (t) => {
  const { store, orgId, paid } = await openedPayment(t);
  await store.payments.grant(paid);
  const again = await store.payments.grant(paid);
  t.equal(again.outcome, 'already_granted');
  t.equal((await grantsOf(store, orgId)).length, 1);
  t.equal((await store.orgs.get(orgId)).balanceMicros, 26_000_000);
  await invariantHolds(t, store);
});

t.test(
  'another event of the same session (e.g. async_payment_succeeded after completed) grants nothing more',
  async (t) => {
    const { store, orgId, paid } = await openedPayment(t);
    await store.payments.grant(paid);
    t.equal((await store.payments.grant({ ...paid, eventId: 'evt_2' })).outcome, 'already_granted');
    t.equal((await grantsOf(store, orgId)).length, 1);
    t.equal((await store.orgs.get(orgId)).balanceMicros, 26_000_000);
    await invariantHolds(t, store);
  },
);

t.test('two deliveries at once grant once', async (t) => {
  const { store, orgId, paid } = await openedPayment(t);
  const outcomes = await Promise.all([store.payments.grant(paid), store.payments.grant(paid)]);
  t.same(outcomes.map((outcome) => outcome.outcome).sort(), ['already_granted', 'granted']);
  t.equal((await grantsOf(store, orgId)).length, 1);
  t.equal((await store.orgs.get(orgId)).balanceMicros, 26_000_000);
  const entries = (await store.audit.list(orgId)).filter((entry) => entry.actor === 'stripe');
  t.equal(entries.length, 1, 'one audit entry');
  await invariantHolds(t, store);
});

const REFUSALS: Array<[string, (paid: PaidSession) => PaidSession, RegExp]> = [
  ['an unknown session', (paid) => ({ ...paid, sessionId: 'cs_unknown' }), /unknown checkout session 'cs_unknown'/],
  ['an amount other than the session was made for', (paid) => ({ ...paid, amountCents: 2501 }), /amount_total 2501/],
  ['another currency', (paid) => ({ ...paid, currency: 'eur' }), /currency 'eur'/],
  ['another organization in the metadata', (paid) => ({ ...paid, orgId: 'org_other' }), /metadata.org_id/],
  ['another payment in the metadata', (paid) => ({ ...paid, paymentId: 'pay_other' }), /metadata.payment_id/],
];
for (const [what, change, reason] of REFUSALS)
  t.test(`${what} is refused and changes nothing`, async (t) => {
    const { store, orgId, payment, paid } = await openedPayment(t);
    const refused = await store.payments.grant(change(paid));
    t.equal(refused.outcome, 'refused');
    if (refused.outcome === 'refused') t.match(refused.reason, reason);
    t.same(await grantsOf(store, orgId), []);
    t.equal((await store.orgs.get(orgId)).balanceMicros, 1_000_000);
    t.match(await store.payments.list(orgId), [{ id: payment.id, status: 'open', completedAt: null }]);
    await invariantHolds(t, store);
  });

t.test('a session that expired unpaid is marked expired, once', async (t) => {
  const { store, orgId } = await openedPayment(t);
  t.equal(await store.payments.expire('cs_test_1'), true);
  t.equal(await store.payments.expire('cs_test_1'), false);
  t.match(await store.payments.list(orgId), [{ status: 'expired' }]);
  await invariantHolds(t, store);
});

t.test('a payment whose session could not be made is forgotten, and not listed before it has one', async (t) => {
  const store = await openStore(await freshStoreOptions());
  t.teardown(() => store.close());
  const org = await store.orgs.create('acme');
  const payment = await store.payments.open({ orgId: org.id, amountCents: 500, currency: 'usd', createdBy: 'a@b.c' });
  t.same(await store.payments.list(org.id), []);
  await store.payments.discard(payment.id);
  t.equal((await store.db.selectFrom('payments').select('id').execute()).length, 0);
});
