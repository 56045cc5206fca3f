// PostgreSQL conflicts (deadlock 40P01, serialization failure 40001) rerun the whole transaction a few
// times; any other error, or a conflict that keeps coming, reaches the caller.
import t from 'tap';
import { retryingConflicts } from '../../../store/transaction-retry.js';
import type { SqlRunner, Transactor } from '../../../store/transactor.js';

const runner: SqlRunner = { run: async () => ({ rows: [], changes: 0 }) };

/** A transactor whose first `failures` transactions fail with `error`. */
function failing(failures: number, error: unknown): { transact: Transactor; attempts: () => number } {
  let attempts = 0;
  return {
    transact: async (work) => {
      attempts++;
      if (attempts <= failures) throw error;
      return work(runner);
    },
    attempts: () => attempts,
  };
}

t.test('a transaction aborted as a deadlock or a serialization failure runs again', async (t) => {
  for (const code of ['40P01', '40001']) {
    const { transact, attempts } = failing(2, Object.assign(new Error('conflict'), { code }));
    t.equal(await retryingConflicts(transact)(async () => 'done'), 'done', code);
    t.equal(attempts(), 3, `${code}: two aborted, the third commits`);
  }
});

t.test('any other error, or a conflict five times over, reaches the caller', async (t) => {
  const refused = failing(1, Object.assign(new Error('check violated'), { code: '23514' }));
  await t.rejects(
    retryingConflicts(refused.transact)(async () => 'done'),
    /check violated/,
  );
  t.equal(refused.attempts(), 1);
  const stuck = failing(10, Object.assign(new Error('deadlock detected'), { code: '40P01' }));
  await t.rejects(
    retryingConflicts(stuck.transact)(async () => 'done'),
    /deadlock detected/,
  );
  t.equal(stuck.attempts(), 5);
});
