// The rules every rate-limit window keeps, whatever its backend: run on the in-process one
// (test/unit/plugins/ratelimit/window.test.ts) and on Redis (test/e2e/ratelimit-redis-window.test.ts).
import type { Test } from 'tap';
import { MAX_STEP, type RateWindow } from '../../plugins/ratelimit/window.js';

/** A fresh window of 60 s, and a fresh organization id in it. */
export type WindowMaker = () => Promise<{ window: RateWindow; orgId: string }>;

export function windowRules(t: Test, make: WindowMaker): void {
  t.test(
    'the start of a call counts one request (or reads, with 0) and reads the input and output counters',
    async (t) => {
      const { window, orgId } = await make();
      const before = Date.now();
      t.equal((await window.open(orgId, 1)).requests.used, 1);
      const counts = await window.open(orgId, 1);
      t.same([counts.requests.used, counts.input.used, counts.output.used], [2, 0, 0]);
      t.equal((await window.open(orgId, 0)).requests.used, 2, 'a read counts nothing');
      for (const count of Object.values(counts) as Array<{ resetAt: number }>)
        t.ok(count.resetAt > before && count.resetAt <= Date.now() + 60_000, 'the window ends within 60 s');
    },
  );

  t.test('an input estimate that fits is kept; one that passes the limit is given back in the same step', async (t) => {
    const { window, orgId } = await make();
    t.match(await window.chargeInput(orgId, 60, 100), { admitted: true, input: { used: 60 } });
    t.match(await window.chargeInput(orgId, 50, 100), { admitted: false, input: { used: 60 } }, 'as it was before');
    t.match(await window.chargeInput(orgId, 40, 100), { admitted: true, input: { used: 100 } }, 'up to the limit fits');
    t.equal((await window.open(orgId, 0)).input.used, 100);
  });

  t.test('a settlement changes only the counters it is given', async (t) => {
    const { window, orgId } = await make();
    await window.chargeInput(orgId, 30, 100);
    t.same(Object.keys(await window.settle(orgId, undefined, 7)), ['output']);
    t.same(Object.keys(await window.settle(orgId, -10, undefined)), ['input']);
    t.same(await window.settle(orgId, undefined, undefined), {});
    const counts = await window.open(orgId, 0);
    t.same([counts.input.used, counts.output.used], [20, 7]);
  });

  t.test("an organization's counters are its own", async (t) => {
    const first = await make();
    const second = await make();
    await first.window.open(first.orgId, 1);
    await first.window.settle(first.orgId, 5, 5);
    const counts = await first.window.open(second.orgId, 0);
    t.same([counts.requests.used, counts.input.used, counts.output.used], [0, 0, 0]);
  });

  t.test('regression: an output charge of 1e18 leaves every later operation of the window answering', async (t) => {
    const { window, orgId } = await make();
    t.equal((await window.settle(orgId, undefined, 1e18)).output?.used, MAX_STEP, 'the charge is clamped');
    t.equal((await window.open(orgId, 0)).output.used, MAX_STEP, 'a read still answers');
    t.equal((await window.settle(orgId, undefined, 5)).output?.used, MAX_STEP + 5, 'so does the next charge');
  });

  t.test('amounts are whole numbers: fractions round, NaN counts nothing, infinities clamp', async (t) => {
    const { window, orgId } = await make();
    t.equal((await window.chargeInput(orgId, 2.6, 100)).input.used, 3);
    t.equal((await window.chargeInput(orgId, Number.NaN, 100)).input.used, 3);
    t.equal((await window.settle(orgId, -1.4, undefined)).input?.used, 2);
    t.equal(
      (await window.settle(orgId, Number.NEGATIVE_INFINITY, undefined)).input?.used,
      0,
      'a counter never shows below zero',
    );
    t.equal((await window.settle(orgId, undefined, Number.POSITIVE_INFINITY)).output?.used, MAX_STEP);
  });
}
