// Limits across a fleet of three gateway processes behind nginx: an organization whose tier allows 50
// requests a minute gets exactly 50 of 150 concurrent calls served, whichever node each lands on; and
// 30 concurrent calls on a balance worth exactly three holds get exactly three served and leave it at zero
// (docs/deployment.md; each call costs its hold, so no admission finds the balance above zero after the
// third: docs/credits-and-ledger.md), with the books balanced after. Each scenario runs once per kind of shared store and
// Redis (FLEET_BACKENDS). The caps of keys and members hold as exactly: a key's day cap worth three holds
// serves three of 30 concurrent calls, a member's 5 requests a minute serve 5 of 20 on two keys.
import t, { type Test } from 'tap';
import { startSim, type RunningSim } from '../../sim/server.js';
import { SYSTEM_ACTOR } from '../../store/audit-log.js';
import type { Caps } from '../../store/cap-rules.js';
import { FLEET_BACKENDS } from '../helpers/fleet-backends.js';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { DIALECTS, PATHS, requestBody } from '../helpers/metered-answers.js';
import { CHAINS, startTier } from '../kit/stack-presets.js';

const LIMIT = 50;
const CALLS = 150;
// Output at a credit per thousand tokens and input free: a hold of max_tokens (10) is 10,000
// micro-credits, and the sim's answer is cut at max_tokens, so a request costs exactly its hold.
const MAX_TOKENS = 10;
const HOLD_MICROS = 10_000;
const CONFIG = 'pricing: { input_per_mtok: 0, output_per_mtok: 1000 }\n' + startTier(LIMIT) + CHAINS.authRatelimitMeter;

let sim: RunningSim;
t.before(async () => {
  sim = await startSim({});
});
t.teardown(() => sim.close());

/** `count` concurrent non-streamed calls through nginx, rotating the dialects: how many got each status. */
async function burst(fleet: Fleet, key: string, count: number): Promise<Record<number, number>> {
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const dialect = DIALECTS[i % DIALECTS.length]!;
      const response = await fetch(fleet.front.url + PATHS[dialect], {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(requestBody(dialect, false, 'Tell me about limits.', MAX_TOKENS)),
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** The nodes' log lines for the organization's generation calls: how many each node answered. */
function servedPerNode(fleet: Fleet, orgId: string): number[] {
  return fleet.nodes.map(
    (node) => node.logs.filter((entry) => entry.org === orgId && typeof entry.status === 'number').length,
  );
}

/** `gateway ledger check`'s line for an organization, in micro-credits. */
function audit(fleet: Fleet, orgId: string): Record<'balance' | 'added' | 'settled' | 'held' | 'discrepancy', number> {
  const line = fleet
    .cli('ledger', 'check')
    .split('\n')
    .find((row) => row.startsWith(`${orgId}\t`));
  if (line === undefined) throw new Error(`gateway ledger check has no line for ${orgId}`);
  const micros = (name: string): number => {
    const value = new RegExp(`${name} (-?[0-9.]+) credits`).exec(line)?.[1];
    if (value === undefined) throw new Error(`no ${name} in ${line}`);
    return Math.round(Number(value) * 1_000_000);
  };
  return {
    balance: micros('balance'),
    added: micros('added'),
    settled: micros('settled'),
    held: micros('held'),
    discrepancy: micros('discrepancy'),
  };
}

async function exactlyTheLimit(t: Test, fleet: Fleet): Promise<void> {
  const org = fleet.createOrg('limited', '100');
  t.same(await burst(fleet, org.key, CALLS), { 200: LIMIT, 429: CALLS - LIMIT });
  const perNode = servedPerNode(fleet, org.orgId);
  t.comment(`calls answered per node: ${perNode.join(' / ')}`);
  t.ok(perNode.filter((count) => count > 0).length >= 2, 'nginx spread the calls over the nodes');
}

async function exactlyThreeHolds(t: Test, fleet: Fleet): Promise<void> {
  const org = fleet.createOrg('three-holds', ((3 * HOLD_MICROS) / 1_000_000).toFixed(6));
  const counts = await burst(fleet, org.key, 30);
  const books = audit(fleet, org.orgId);
  t.comment(`30 calls on 3 holds: ${JSON.stringify(counts)}, final balance ${books.balance} micro-credits`);
  // Each call costs exactly its hold, so three holds take the balance to zero and no later admission finds it
  // above zero (docs/deployment.md): an off-by-one in the 402 check would serve a fourth and end at −1 hold.
  t.same(counts, { 200: 3, 402: 27 }, 'the three calls the balance covers are served, the rest get 402');
  t.equal(books.balance, 0, 'the balance ends at exactly zero');
  t.same(
    { held: books.held, discrepancy: books.discrepancy, balance: books.added - books.settled - books.held },
    { held: 0, discrepancy: 0, balance: books.balance },
    'balance = Σ credits added − Σ settled − Σ open holds, with no hold left open',
  );
  t.equal(books.settled, 3 * HOLD_MICROS, 'each served call paid its cost');
}

/** A new organization with credits to spare and a member with `keys` keys; caps set on the first key or the member. */
async function cappedOrg(fleet: Fleet, name: string, caps: { key?: Caps; member?: Caps }, keys = 1) {
  const store = await fleet.store();
  const org = await store.orgs.create(name);
  await store.orgs.addCredits(org.id, 100_000_000);
  const email = `${name}@example.com`;
  await store.orgs.addMember(org.id, { email, role: 'member' });
  const created = [];
  for (let i = 0; i < keys; i++) created.push(await store.keys.create(org.id, `k${i}`, { who: email, address: null }));
  if (caps.key !== undefined)
    await store.caps.set(org.id, { kind: 'key', keyId: created[0]!.record.id }, caps.key, SYSTEM_ACTOR);
  if (caps.member !== undefined) await store.caps.set(org.id, { kind: 'member', email }, caps.member, SYSTEM_ACTOR);
  return { store, keys: created };
}

async function exactlyTheSpendCap(t: Test, fleet: Fleet): Promise<void> {
  const { store, keys } = await cappedOrg(fleet, 'day-capped', { key: { dayMicros: 3 * HOLD_MICROS } });
  const [key] = keys;
  t.same(await burst(fleet, key!.key, 30), { 200: 3, 429: 27 }, 'the three calls the cap covers are served');
  const spend = await store.db
    .selectFrom('key_spend_daily')
    .select('spent_micros')
    .where('key_id', '=', key!.record.id)
    .execute();
  t.equal(
    spend.reduce((sum, row) => sum + Number(row.spent_micros), 0),
    3 * HOLD_MICROS,
    'the key spent exactly its cap',
  );
}

async function exactlyTheMemberRate(t: Test, fleet: Fleet): Promise<void> {
  const { keys } = await cappedOrg(fleet, 'rate-capped', { member: { requestsPerMinute: 5 } }, 2);
  const [first, second] = await Promise.all([burst(fleet, keys[0]!.key, 10), burst(fleet, keys[1]!.key, 10)]);
  t.equal((first[200] ?? 0) + (second[200] ?? 0), 5, "5 of the member's 20 calls on two keys are served");
  t.equal((first[429] ?? 0) + (second[429] ?? 0), 15);
}

for (const backends of FLEET_BACKENDS) {
  t.test(backends.label, async (t) => {
    const fleet = await startFleet(t, { backends, upstreamUrl: `${sim.url}/v1`, config: CONFIG });
    await t.test('150 concurrent calls through nginx with a limit of 50 a minute: exactly 50 × 200, 100 × 429', (t) =>
      exactlyTheLimit(t, fleet),
    );
    await t.test('30 concurrent calls on a balance worth exactly three holds: 3 × 200, 27 × 402, balance 0', (t) =>
      exactlyThreeHolds(t, fleet),
    );
    await t.test('30 concurrent calls on a key whose day cap is worth three holds: 3 × 200, 27 × 429', (t) =>
      exactlyTheSpendCap(t, fleet),
    );
    await t.test('20 concurrent calls on two keys of a member capped at 5 requests a minute: exactly 5 served', (t) =>
      exactlyTheMemberRate(t, fleet),
    );
  });
}
