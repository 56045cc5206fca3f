// Deadlines checked by one coarse timer (http/deadlines.ts).
import t from 'tap';
import { checkEveryMs, Deadlines } from '../../../http/deadlines.js';
import { heldOpen } from '../../helpers/held-open.js';

/** Resolves with `name` when the deadline expires. */
function deadline(at: number, name: string, expired: string[]): { at: number; expire(): void; done: Promise<void> } {
  let expire = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    expire = () => {
      expired.push(name);
      resolve();
    };
  });
  return { at, expire: () => expire(), done };
}

// Regression: the test read the wall clock, so on a loaded machine the timer fired after both deadlines had passed and
// expired them in the order they were added. The deadlines' clock is now the test's.
t.test('a pending deadline expires once its time has passed, not before; a deleted one never does', async (t) => {
  let now = 100;
  const deadlines = new Deadlines(10, () => now);
  const expired: string[] = [];
  const deleted = deadline(100, 'deleted', expired);
  deadlines.add(deleted);
  deadlines.delete(deleted);
  const later = deadline(120, 'later', expired);
  const due = deadline(110, 'due', expired);
  deadlines.add(later);
  deadlines.add(due);
  now = 115;
  await heldOpen(due.done);
  t.same(expired, ['due'], 'at 115 only the deadline of 110 has passed');
  now = 120;
  await heldOpen(later.done);
  t.same(expired, ['due', 'later']);
});

t.test('deadlines are checked every tenth of their length, between 10 ms and 1 s', async (t) => {
  t.equal(checkEveryMs(60_000), 1000);
  t.equal(checkEveryMs(500), 50);
  t.equal(checkEveryMs(20), 10);
});
