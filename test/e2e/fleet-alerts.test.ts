// Threshold alerts in a fleet (issue #28): two gateway processes on one PostgreSQL serve concurrent
// requests that all take the balance below a rule's threshold; the crossing fires one event, delivered
// once, by whichever node inserted it first.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { alertStore } from '../../store/alert-store.js';
import { WebhookSeal } from '../../store/webhook-seal.js';
import { startSim } from '../../sim/server.js';
import { FLEET_BACKENDS } from '../helpers/fleet-backends.js';
import { startFleet } from '../helpers/fleet.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { chainOf } from '../kit/stack-presets.js';

const WEBHOOK_SECRET = randomBytes(24).toString('hex');

t.test('a crossing served by several nodes at once fires one event, delivered once', async (t) => {
  const sim = await startSim({});
  t.teardown(() => sim.close());
  const hooks = await startWebhookReceiver();
  t.teardown(() => hooks.close());
  const fleet = await startFleet(t, {
    backends: FLEET_BACKENDS[0]!,
    upstreamUrl: `${sim.url}/v1`,
    config: chainOf('auth', { name: 'alerts', options: '{ poll_ms: 50, allow_private_networks: true }' }, 'meter'),
    nodes: 2,
    env: { GATEWAY_WEBHOOK_SECRET: WEBHOOK_SECRET },
  });
  const org = fleet.createOrg('acme', '1');
  const store = await fleet.store();
  const alerts = alertStore(store.db);
  const rule = await alerts.rules.create(org.orgId, {
    scope: 'org',
    scopeId: null,
    kind: 'balance_below',
    threshold: 1_000_000,
    period: null,
  });
  await alerts.endpoints.create(
    org.orgId,
    { url: hooks.url, description: 'fleet' },
    new WebhookSeal(Buffer.from(WEBHOOK_SECRET, 'utf8')),
  );

  // Every request crosses: the balance starts at the threshold and each one spends.
  const answers = await Promise.all(
    fleet.nodes.flatMap((node) =>
      Array.from({ length: 4 }, () =>
        fetch(`${node.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${org.key}` },
          body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
        }).then(async (response) => {
          await response.text();
          return response.status;
        }),
      ),
    ),
  );
  t.same(answers, Array<number>(answers.length).fill(200));
  const [delivery] = await hooks.delivered(1);
  t.match(JSON.parse(delivery!.body), { type: 'balance.below', data: { rule_id: rule.id } });

  // The rule stays disarmed while the balance stays below: no later check can fire it again.
  const events = await store.db
    .withTables<{ alert_events: { id: string; rule_id: string } }>()
    .selectFrom('alert_events')
    .select('id')
    .where('rule_id', '=', rule.id)
    .execute();
  t.same(
    events.map((event) => event.id),
    [delivery!.headers['gateway-event-id']],
    'one event',
  );
  t.match(await alerts.rules.find(org.orgId, rule.id), { armed: false });
  t.equal(hooks.received.length, 1, 'delivered once');
});
