// The node's budget of request bodies in flight (http/body-budget.ts): bytes taken as bodies arrive,
// refused past the budget, given back when a request ends.
import t from 'tap';
import { BodyBudget } from '../../../http/body-budget.js';

t.test('bodies take bytes until the budget is spent; past it a take is refused and takes nothing', async (t) => {
  const budget = new BodyBudget(1000);
  const first = budget.reservation();
  const second = budget.reservation();
  t.ok(first.take(600));
  t.ok(second.take(400), 'up to the budget exactly');
  t.notOk(second.take(1), 'one byte more is refused');
  t.equal(budget.used, 1000, 'a refused take holds nothing');
});

t.test("a request's end gives back all its body took, once", async (t) => {
  const budget = new BodyBudget(1000);
  const first = budget.reservation();
  t.ok(first.take(300));
  t.ok(first.take(300));
  first.release();
  first.release();
  t.equal(budget.used, 0);
  t.ok(budget.reservation().take(1000), 'the whole budget is free again');
});
