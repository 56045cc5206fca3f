// Spend and concurrency caps decided in the meter's hold transaction (plugins/meter/cap-admission.ts):
// reserved against like the balance, so holds of one turn, or of concurrent turns, cannot take more
// than a cap; settled costs count in the day, week and month their requests were admitted in.
import t from 'tap';
import { Ledger, type Hold } from '../../../../plugins/meter/ledger.js';
import { NO_USAGE } from '../../../../plugins/meter/price.js';
import { SYSTEM_ACTOR } from '../../../../store/audit-log.js';
import type { Caps } from '../../../../store/cap-rules.js';
import { auditBalances } from '../../../../store/balance-audit.js';
import { openStore, type Store } from '../../../../store/store.js';
import { freshStoreOptions } from '../../../helpers/test-store.js';

let store: Store;
let ledger: Ledger;
let counter = 0;
t.before(async () => {
  store = await openStore(await freshStoreOptions());
  ledger = new Ledger(store.db, store.transact);
});
t.teardown(() => store.close());

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const TOMORROW = Date.parse('2026-11-29T00:00:00.000Z');

/** A new organization with credits, a member and a key of the member; caps on the key and on the member. */
async function scope(keyCaps: Caps = {}, memberCaps: Caps = {}) {
  const org = await store.orgs.create(`org-${++counter}`);
  await store.orgs.addCredits(org.id, 1_000_000_000);
  const email = `m${counter}@example.com`;
  await store.orgs.addMember(org.id, { email, role: 'member' });
  const key = (await store.keys.create(org.id, 'k', { who: email, address: null })).record;
  await store.caps.set(org.id, { kind: 'key', keyId: key.id }, keyCaps, SYSTEM_ACTOR);
  await store.caps.set(org.id, { kind: 'member', email }, memberCaps, SYSTEM_ACTOR);
  const hold = (holdMicros: number, createdAt = NOW, keyId = key.id): Hold => ({
    id: `req-${++counter}`,
    orgId: org.id,
    keyId,
    dialect: 'chat',
    holdMicros,
    createdAt,
    member: email,
    caps: [
      ...(Object.keys(keyCaps).length > 0 ? [{ scope: { kind: 'key' as const, keyId: key.id }, caps: keyCaps }] : []),
      ...(Object.keys(memberCaps).length > 0 ? [{ scope: { kind: 'member' as const, email }, caps: memberCaps }] : []),
    ],
  });
  const anotherKey = async () => (await store.keys.create(org.id, 'k2', { who: email, address: null })).record.id;
  return { orgId: org.id, keyId: key.id, email, hold, anotherKey };
}

const settle = (hold: Hold, costMicros: number) =>
  ledger.settle(hold, { usage: NO_USAGE, costMicros, status: 200, durationMs: 1 });

t.test('a spend cap admits holds while the spend plus the hold fits, and refuses the one that does not', async (t) => {
  const { hold } = await scope({ dayMicros: 1000 });
  for (let i = 0; i < 3; i++) t.same(await ledger.hold(hold(300)), { taken: true });
  t.match(await ledger.hold(hold(300)), {
    taken: false,
    cap: { cap: 'dayMicros', limit: 1000, used: 900, needed: 300, resetAt: TOMORROW },
  });
  t.same(await ledger.hold(hold(100)), { taken: true }, 'a smaller hold that fits is taken');
});

t.test('holds of one turn cannot overshoot a cap: ten at once on a cap of three', async (t) => {
  const { hold, orgId } = await scope({ dayMicros: 900 });
  const results = await Promise.all(Array.from({ length: 10 }, () => ledger.hold(hold(300))));
  t.equal(results.filter((result) => result.taken).length, 3);
  const [books] = await auditBalances(store.db, orgId);
  t.equal(books?.discrepancyMicros, 0, 'the books balance');
});

t.test('a settlement replaces the hold by the cost in the spend of the day it was admitted', async (t) => {
  const { hold, orgId, keyId } = await scope({ dayMicros: 1000 });
  const first = hold(600);
  t.same(await ledger.hold(first), { taken: true });
  t.match(await ledger.hold(hold(600)), { taken: false }, 'the open hold counts');
  await settle(first, 150);
  t.same((await store.caps.use(orgId, { kind: 'key', keyId }, NOW)).spentMicros, { day: 150, week: 150, month: 150 });
  t.same(await ledger.hold(hold(600)), { taken: true }, 'the cost counts, not the hold');
});

t.test('a hold the orphan sweep released no longer counts against the cap', async (t) => {
  const { hold } = await scope({ dayMicros: 500 });
  t.same(await ledger.hold(hold(500, NOW - 10_000)), { taken: true });
  t.match(await ledger.hold(hold(500)), { taken: false });
  t.ok((await ledger.releaseOrphans(NOW - 5_000, () => false)) >= 1);
  t.same(await ledger.hold(hold(500)), { taken: true });
});

t.test('week and month caps count the earlier days of their period; a new period starts from zero', async (t) => {
  const { hold } = await scope({ weekMicros: 1000, monthMicros: 1500 });
  // Monday 2026-11-23: a week's spend before Saturday.
  const monday = hold(800, Date.parse('2026-11-23T09:00:00.000Z'));
  await ledger.hold(monday);
  await settle(monday, 800);
  t.match(await ledger.hold(hold(300)), { taken: false, cap: { cap: 'weekMicros', used: 800 } });
  // 2026-11-02 is in the month but not in the week.
  const earlier = hold(600, Date.parse('2026-11-02T09:00:00.000Z'));
  await ledger.hold(earlier);
  await settle(earlier, 600);
  t.match(await ledger.hold(hold(150)), { taken: false, cap: { cap: 'monthMicros', used: 1400 } });
  t.same(await ledger.hold(hold(150, Date.parse('2026-12-01T00:00:00.000Z'))), { taken: true }, 'December is new');
});

t.test("a member's caps count every key the member made", async (t) => {
  const { hold, anotherKey } = await scope({}, { dayMicros: 500 });
  t.same(await ledger.hold(hold(400)), { taken: true });
  t.match(await ledger.hold(hold(200, NOW, await anotherKey())), {
    taken: false,
    cap: { scope: { kind: 'member' }, cap: 'dayMicros', used: 400 },
  });
});

t.test('a concurrency cap counts the requests in flight', async (t) => {
  const { hold } = await scope({ concurrentRequests: 2 });
  const first = hold(1);
  const results = await Promise.all([ledger.hold(first), ledger.hold(hold(1)), ledger.hold(hold(1))]);
  t.same(
    results.map((result) => result.taken),
    [true, true, false],
  );
  t.match(results[2], { cap: { cap: 'concurrentRequests', limit: 2, used: 2, resetAt: undefined } });
  await settle(first, 1);
  t.same(await ledger.hold(hold(1)), { taken: true }, 'a request that ended frees its place');
});

t.test('a cap of zero refuses every hold', async (t) => {
  const { hold } = await scope({ dayMicros: 0 });
  t.match(await ledger.hold(hold(1)), { taken: false, cap: { cap: 'dayMicros', limit: 0 } });
});

t.test('the balance still decides after the caps: a hold within its caps on an empty balance is refused', async (t) => {
  const { hold, orgId } = await scope({ dayMicros: 10 });
  await store.db.updateTable('orgs').set({ balance_micros: 0 }).where('id', '=', orgId).execute();
  t.same(await ledger.hold(hold(5)), { taken: false, balanceMicros: 0 });
});
