// How alert events reach webhook endpoints: signed with the endpoint's secret, retried with exponential
// backoff until a 2xx under the same event id, every attempt in the delivery log, each attempt sent by
// one node only.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { verifyWebhookSignature } from '../../../../notify/webhook-signature.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../helpers/webhook-receiver.js';
import { testDialect } from '../../../helpers/test-store.js';
import { WebhookSender } from '../../../../plugins/alerts/webhook-sender.js';
import { alertFixture, POLICY, SEAL, type AlertFixture } from './alert-fixture.js';

async function receiver(t: Test): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  t.teardown(() => started.close());
  return started;
}

/** An endpoint for the receiver, and one event queued for it; the endpoint's secret. */
async function queued(fixture: AlertFixture, url: string) {
  const { alerts } = fixture.node;
  const { endpoint, secret } = await alerts.endpoints.create(fixture.orgId, { url, description: 'billing' }, SEAL);
  const event = await alerts.events.fireOnce({
    orgId: fixture.orgId,
    ruleId: null,
    crossing: 'test:1',
    type: 'test',
    data: { endpoint_id: endpoint.id },
  });
  return { endpoint, secret, event: event! };
}

t.test("a delivery is signed with its endpoint's secret, and the signature verifies", async (t) => {
  const fixture = await alertFixture(t);
  const hooks = await receiver(t);
  const { secret, event } = await queued(fixture, hooks.url);
  t.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  t.equal(await fixture.node.sender.sendDue(), 1);
  const [delivery] = await hooks.delivered(1);
  const body = JSON.parse(delivery!.body) as Record<string, unknown>;
  t.same(body, {
    id: event.id,
    type: 'test',
    created: Math.floor(event.createdAt / 1000),
    org_id: fixture.orgId,
    data: event.data,
  });
  t.equal(delivery!.headers['gateway-event-id'], event.id);
  const signature = delivery!.headers['gateway-signature'] as string;
  t.ok(verifyWebhookSignature(secret, signature, delivery!.body, { now: fixture.clock.now() }), 'verifies');
  t.notOk(
    verifyWebhookSignature('whsec_forged', signature, delivery!.body, { now: fixture.clock.now() }),
    'not with another secret',
  );
});

t.test('a failed delivery is retried with exponential backoff until a 2xx, under the same event id', async (t) => {
  const fixture = await alertFixture(t);
  const { clock, node } = fixture;
  const hooks = await receiver(t);
  hooks.answers.push(500, 503);
  const { endpoint, event } = await queued(fixture, hooks.url);
  t.equal(await node.sender.sendDue(), 1, 'attempt 1: 500');
  t.equal(await node.sender.sendDue(), 0, 'not due before its backoff');
  clock.advance(POLICY.backoffBaseMs);
  t.equal(await node.sender.sendDue(), 1, 'attempt 2, 10 s later: 503');
  clock.advance(POLICY.backoffBaseMs);
  t.equal(await node.sender.sendDue(), 0, 'the second wait is twice the first');
  clock.advance(POLICY.backoffBaseMs);
  t.equal(await node.sender.sendDue(), 1, 'attempt 3, 20 s later: 200');
  clock.advance(POLICY.backoffMaxMs);
  t.equal(await node.sender.sendDue(), 0, 'delivered: nothing more');
  t.same(
    (await hooks.delivered(3)).map((delivery) => delivery.headers['gateway-event-id']),
    [event.id, event.id, event.id],
    'every attempt carries the event id the receiver de-duplicates on',
  );
  const log = await node.alerts.deliveries.list(endpoint.id);
  t.same(
    log.map((attempt) => [attempt.attempt, attempt.status, attempt.responseStatus]),
    [
      [3, 'delivered', 200],
      [2, 'failed', 503],
      [1, 'failed', 500],
    ],
    'the delivery log holds every attempt, newest first',
  );
});

t.test('attempts stop after the last one the policy allows', async (t) => {
  const fixture = await alertFixture(t);
  const hooks = await receiver(t);
  hooks.answers.push(...Array<number>(POLICY.maxAttempts + 1).fill(500));
  const { endpoint } = await queued(fixture, hooks.url);
  for (let attempt = 1; attempt <= POLICY.maxAttempts + 1; attempt++) {
    await fixture.node.sender.sendDue();
    fixture.clock.advance(POLICY.backoffMaxMs);
  }
  const log = await fixture.node.alerts.deliveries.list(endpoint.id);
  t.equal(hooks.received.length, POLICY.maxAttempts);
  t.same(
    log.map((attempt) => attempt.status),
    Array<string>(POLICY.maxAttempts).fill('failed'),
  );
});

t.test('a receiver that cannot be reached fails the attempt with the reason', async (t) => {
  const fixture = await alertFixture(t);
  const hooks = await receiver(t);
  const url = hooks.url;
  await hooks.close();
  const { endpoint } = await queued(fixture, url);
  await fixture.node.sender.sendDue();
  const [next, first] = await fixture.node.alerts.deliveries.list(endpoint.id);
  t.match(first, { attempt: 1, status: 'failed', responseStatus: null, error: /ECONNREFUSED|connect/ });
  t.match(next, { attempt: 2, status: 'pending', nextAttemptAt: fixture.clock.now() + POLICY.backoffBaseMs });
});

t.test('a disabled endpoint is sent nothing', async (t) => {
  const fixture = await alertFixture(t);
  const hooks = await receiver(t);
  const { endpoint } = await queued(fixture, hooks.url);
  await fixture.node.alerts.endpoints.disable(fixture.orgId, endpoint.id);
  t.equal(await fixture.node.sender.sendDue(), 0);
  t.equal(hooks.received.length, 0);
});

t.test(
  'an attempt is claimed and sent by one node only (the fleet)',
  { skip: testDialect !== 'postgres' && 'a fleet runs on PostgreSQL (webhook-sender-postgres.test.ts)' },
  async (t) => {
    const fixture = await alertFixture(t);
    const hooks = await receiver(t);
    const nodes = [fixture.node, await fixture.anotherNode(), await fixture.anotherNode()];
    await queued(fixture, hooks.url);
    const sent = await Promise.all(nodes.map((node) => node.sender.sendDue()));
    t.equal(
      sent.reduce((sum, count) => sum + count, 0),
      1,
    );
    t.equal(hooks.received.length, 1);
  },
);

t.test(
  'an endpoint on an internal address is refused for good unless the operator allows private networks',
  async (t) => {
    const fixture = await alertFixture(t);
    const hooks = await receiver(t);
    const closed = new WebhookSender({
      deliveries: fixture.node.alerts.deliveries,
      seal: SEAL,
      policy: POLICY,
      leaseMs: 60_000,
      batch: 50,
      allowPrivateNetworks: false,
      now: fixture.clock.now,
    });
    const byName = await queued(fixture, hooks.url.replace('127.0.0.1', 'localhost'));
    const byAddress = await fixture.node.alerts.endpoints.create(
      fixture.orgId,
      { url: 'http://[::1]:9/', description: '' },
      SEAL,
    );
    await fixture.node.alerts.events.fireOnce({
      orgId: fixture.orgId,
      ruleId: null,
      crossing: 'test:2',
      type: 'test',
      data: {},
    });
    t.equal(await closed.sendDue(), 3, "the first event's one delivery, the second's two");
    t.equal(hooks.received.length, 0, 'nothing sent');
    for (const endpoint of [byName.endpoint, byAddress.endpoint]) {
      const log = await fixture.node.alerts.deliveries.list(endpoint.id);
      t.ok(log.length > 0 && log.every((attempt) => attempt.status === 'failed'), 'failed, not retried');
      t.match(log[0]!.error, /internal address/);
    }
  },
);

t.test('an attempt the receiver does not answer within the timeout fails, and is retried', async (t) => {
  const fixture = await alertFixture(t);
  const silent = createServer(() => undefined); // takes the request, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    silent.closeAllConnections();
    silent.close();
  });
  const { endpoint } = await queued(fixture, `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`);
  const impatient = new WebhookSender({
    deliveries: fixture.node.alerts.deliveries,
    seal: SEAL,
    policy: { ...POLICY, timeoutMs: 200 },
    leaseMs: 60_000,
    batch: 50,
    allowPrivateNetworks: true,
    now: fixture.clock.now,
  });
  await impatient.sendDue();
  const [next, first] = await fixture.node.alerts.deliveries.list(endpoint.id);
  t.match(first, { attempt: 1, status: 'failed', responseStatus: null, error: 'no answer within 200 ms' });
  t.match(next, { attempt: 2, status: 'pending' });
});

t.test('the delivery log forgets ended attempts older than the retention, never a pending one', async (t) => {
  const fixture = await alertFixture(t);
  const hooks = await receiver(t);
  hooks.answers.push(500);
  const { endpoint } = await queued(fixture, hooks.url);
  await fixture.node.sender.sendDue();
  const deliveries = fixture.node.alerts.deliveries;
  t.equal(await deliveries.prune(fixture.clock.now()), 0, 'ended now: kept');
  t.equal(await deliveries.prune(fixture.clock.now() + 1), 1, 'the failed attempt goes');
  t.match(await deliveries.list(endpoint.id), [{ attempt: 2, status: 'pending' }], 'the pending one stays');
});
