// When the alerts fire: a balance rule once per crossing below its threshold (re-armed by a top-up), a
// cap rule once per period at its percentage of the cap; once in a fleet too, whichever node checks first.
import { pino } from 'pino';
import t from 'tap';
import { DAY_MS } from '../../../../store/cap-rules.js';
import { CapStore } from '../../../../store/caps.js';
import { testDialect } from '../../../helpers/test-store.js';
import { alertFixture, type AlertFixture, type AlertNode } from './alert-fixture.js';

const log = pino({ level: 'silent' });

async function checked(fixture: AlertFixture, node: AlertNode = fixture.node): Promise<void> {
  node.check.requestEnded(fixture.orgId, fixture.keyId, log);
  await node.check.idle();
}

async function events(fixture: AlertFixture) {
  return fixture.node.store.db
    .withTables<{ alert_events: { id: string; crossing: string; type: string; payload: string } }>()
    .selectFrom('alert_events')
    .selectAll()
    .orderBy('crossing')
    .execute();
}

async function balanceRule(fixture: AlertFixture, thresholdMicros: number) {
  return fixture.node.alerts.rules.create(fixture.orgId, {
    scope: 'org',
    scopeId: null,
    kind: 'balance_below',
    threshold: thresholdMicros,
    period: null,
  });
}

t.test('a balance rule fires when the balance goes below its threshold, once per crossing', async (t) => {
  const fixture = await alertFixture(t);
  await fixture.setBalance(9_000_000);
  const rule = await balanceRule(fixture, 5_000_000);
  await checked(fixture);
  t.equal((await events(fixture)).length, 0, 'at or above the threshold: nothing');
  await fixture.setBalance(4_000_000);
  await checked(fixture);
  await fixture.setBalance(3_000_000);
  await checked(fixture);
  const fired = await events(fixture);
  t.equal(fired.length, 1, 'one event for one crossing');
  t.equal(fired[0]!.type, 'balance.below');
  t.same(JSON.parse(fired[0]!.payload), { rule_id: rule.id, threshold_micros: 5_000_000, balance_micros: 4_000_000 });
  t.same(
    fixture.node.fired.map((event) => event.id),
    [fired[0]!.id],
    'the node that fired it tells the admins',
  );
});

t.test('a balance rule re-arms when a top-up brings the balance back to its threshold', async (t) => {
  const fixture = await alertFixture(t);
  await fixture.setBalance(4_000_000);
  await balanceRule(fixture, 5_000_000);
  await checked(fixture);
  t.equal(await fixture.node.alerts.rules.rearmRecovered(), 0, 'still below: not re-armed');
  await fixture.node.store.orgs.addCredits(fixture.orgId, 2_000_000);
  t.equal(await fixture.node.alerts.rules.rearmRecovered(), 1, 'the top-up re-arms it');
  await checked(fixture);
  t.equal((await events(fixture)).length, 1, 'above again: nothing new');
  await fixture.setBalance(1_000_000);
  await checked(fixture);
  const fired = await events(fixture);
  t.same(
    fired.map((event) => event.crossing),
    ['n1', 'n2'],
    'the second crossing is a new event',
  );
  t.not(fired[0]!.id, fired[1]!.id);
});

t.test('a cap rule fires once per period when the spend reaches its percentage of the cap', async (t) => {
  const fixture = await alertFixture(t);
  const { store } = fixture.node;
  const scope = { kind: 'key' as const, keyId: fixture.keyId };
  await new CapStore(store.db).set(fixture.orgId, scope, { dayMicros: 1_000_000 }, { who: 'operator', address: null });
  await fixture.node.alerts.rules.create(fixture.orgId, {
    scope: 'key',
    scopeId: fixture.keyId,
    kind: 'cap_pct',
    threshold: 80,
    period: 'day',
  });
  const spend = async (micros: number): Promise<void> => {
    const day = Math.floor(fixture.clock.now() / DAY_MS);
    await store.db.deleteFrom('key_spend_daily').where('key_id', '=', fixture.keyId).where('day', '=', day).execute();
    await store.db
      .insertInto('key_spend_daily')
      .values({ key_id: fixture.keyId, day, org_id: fixture.orgId, spent_micros: micros })
      .execute();
  };
  await spend(799_999);
  await checked(fixture);
  t.equal((await events(fixture)).length, 0, 'below 80%: nothing');
  await spend(800_000);
  await checked(fixture);
  await spend(950_000);
  await checked(fixture);
  t.equal((await events(fixture)).length, 1, 'once in the day');
  fixture.clock.advance(DAY_MS);
  await spend(900_000);
  await checked(fixture);
  const fired = await events(fixture);
  t.equal(fired.length, 2, 'once more the next day');
  const data = JSON.parse(fired[1]!.payload) as Record<string, unknown>;
  t.match(data, { scope: 'key', scope_id: fixture.keyId, period: 'day', threshold_pct: 80, cap_micros: 1_000_000 });
});

// A fleet shares PostgreSQL; in one process, SQLite's connections would wait on each other's locks synchronously.
t.test(
  'a crossing checked by several nodes at once fires once (the fleet)',
  { skip: testDialect !== 'postgres' && 'a fleet runs on PostgreSQL (alert-check-postgres.test.ts)' },
  async (t) => {
    const fixture = await alertFixture(t);
    const nodes = [fixture.node, await fixture.anotherNode(), await fixture.anotherNode()];
    await fixture.setBalance(9_000_000);
    await balanceRule(fixture, 5_000_000);
    await fixture.setBalance(1_000_000);
    for (const node of nodes)
      for (let request = 0; request < 5; request++) node.check.requestEnded(fixture.orgId, fixture.keyId, log);
    await Promise.all(nodes.map((node) => node.check.idle()));
    t.equal((await events(fixture)).length, 1, 'one event');
    t.equal(nodes.flatMap((node) => node.fired).length, 1, 'told by one node');
  },
);

t.test(
  "requests of several keys that end during one check are all checked after it (each key's cap rules)",
  async (t) => {
    const fixture = await alertFixture(t);
    const { store } = fixture.node;
    const other = (await store.keys.create(fixture.orgId, 'ci')).record.id;
    await new CapStore(store.db).set(
      fixture.orgId,
      { kind: 'key', keyId: other },
      { dayMicros: 100 },
      { who: 'operator', address: null },
    );
    await fixture.node.alerts.rules.create(fixture.orgId, {
      scope: 'key',
      scopeId: other,
      kind: 'cap_pct',
      threshold: 50,
      period: 'day',
    });
    await store.db
      .insertInto('key_spend_daily')
      .values({ key_id: other, day: Math.floor(fixture.clock.now() / DAY_MS), org_id: fixture.orgId, spent_micros: 60 })
      .execute();
    fixture.node.check.requestEnded(fixture.orgId, fixture.keyId, log);
    fixture.node.check.requestEnded(fixture.orgId, other, log);
    await fixture.node.check.idle();
    t.match(await events(fixture), [{ type: 'cap.threshold' }]);
  },
);
