// store/group-commit.ts: the operations of one event-loop turn are one transaction, one batch is written
// at a time, and a failed batch is written again one operation per transaction.
import t from 'tap';
import { GroupCommit } from '../../../store/group-commit.js';
import type { SqlRunner, Transactor } from '../../../store/transactor.js';

/** A transactor whose transactions each wait until the test lets them commit; it records each batch. */
function heldTransactions() {
  const batches: number[][] = [];
  const open: Array<() => void> = [];
  let opened: () => void = () => {};
  const transact: Transactor = async (work) => {
    const committed = new Promise<void>((resolve) => open.push(resolve));
    opened();
    const result = await work({} as SqlRunner);
    await committed;
    return result;
  };
  return {
    batches,
    transact,
    /** Resolves once a transaction is open (waiting to commit). */
    nextOpen: () => new Promise<void>((resolve) => (opened = resolve)),
    commitOldest: () => open.shift()!(),
    openCount: () => open.length,
  };
}

t.test('the operations of one turn are written in one transaction', async (t) => {
  const db = heldTransactions();
  const commits = new GroupCommit<number, number>(db.transact, async (_sql, ops) => {
    db.batches.push([...ops]);
    return ops.map((op) => op * 10);
  });
  const opened = db.nextOpen();
  const results = Promise.all([1, 2, 3].map((op) => commits.run(op)));
  await opened;
  db.commitOldest();
  t.same(await results, [10, 20, 30]);
  t.same(db.batches, [[1, 2, 3]]);
});

t.test(
  'regression: one batch is written at a time (a hot organization on PostgreSQL was a queue of one-request transactions, each waiting on the last one’s row lock)',
  async (t) => {
    const db = heldTransactions();
    const commits = new GroupCommit<number, number>(db.transact, async (_sql, ops) => {
      db.batches.push([...ops]);
      return [...ops];
    });
    const firstOpen = db.nextOpen();
    const first = commits.run(1);
    await firstOpen;
    // While the first batch waits for its commit, operations arrive over several turns.
    const later: Array<Promise<number>> = [];
    for (const op of [2, 3, 4]) {
      later.push(commits.run(op));
      await new Promise((resolve) => setImmediate(resolve));
    }
    t.equal(db.openCount(), 1, 'no second transaction opens while the first is on its way');
    const secondOpen = db.nextOpen();
    db.commitOldest();
    t.equal(await first, 1);
    await secondOpen;
    db.commitOldest();
    t.same(await Promise.all(later), [2, 3, 4]);
    t.same(db.batches, [[1], [2, 3, 4]], 'what arrived meanwhile is the next batch, whole');
  },
);

t.test('a failed batch is written again one operation per transaction, so a bad one fails alone', async (t) => {
  const batches: number[][] = [];
  const transact: Transactor = (work) => work({} as SqlRunner);
  const commits = new GroupCommit<number, number>(transact, async (_sql, ops) => {
    batches.push([...ops]);
    if (ops.includes(2)) throw new Error('operation 2 is bad');
    return [...ops];
  });
  const results = await Promise.allSettled([1, 2, 3].map((op) => commits.run(op)));
  t.same(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.same(batches, [[1, 2, 3], [1], [2], [3]]);
});

t.test(
  'regression: a failed batch’s operations are written again one after another, in their order (a duplicate hold on PostgreSQL failed or won by which reached the server first)',
  async (t) => {
    let open = 0;
    let mostOpen = 0;
    // Each transaction spans a turn of the event loop, as one on a database server does.
    const transact: Transactor = async (work) => {
      mostOpen = Math.max(mostOpen, ++open);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        return await work({} as SqlRunner);
      } finally {
        open--;
      }
    };
    const written = new Set<string>();
    // Row ids, as the ledger's holds: the later of two alike is the one that fails.
    const commits = new GroupCommit<string, string>(transact, async (_sql, ops) => {
      const rows = new Set(written);
      for (const op of ops) {
        if (rows.has(op)) throw new Error(`duplicate ${op}`);
        rows.add(op);
      }
      for (const op of ops) written.add(op);
      return [...ops];
    });
    const results = await Promise.allSettled(['a', 'a', 'b'].map((op) => commits.run(op)));
    t.same(
      results.map((result) => result.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    t.equal(mostOpen, 1, 'one transaction at a time');
  },
);
