// Deadlines checked by one coarse timer (http/deadlines.ts).
import t from 'tap';
import { checkEveryMs, Deadlines } from '../../../http/deadlines.js';
import { heldOpen } from '../../helpers/held-open.js';

t.test('a pending deadline expires once its time has passed; a deleted one never does', async (t) => {
  const deadlines = new Deadlines(10);
  const expired: string[] = [];
  const now = performance.now();
  const deleted = { at: now, expire: () => expired.push('deleted') };
  deadlines.add(deleted);
  deadlines.delete(deleted);
  await heldOpen(
    new Promise<void>((resolve) => {
      deadlines.add({
        at: now + 20,
        expire: () => {
          expired.push('later');
          resolve();
        },
      });
      deadlines.add({ at: now, expire: () => expired.push('due') });
    }),
  );
  t.same(expired, ['due', 'later']);
});

t.test('deadlines are checked every tenth of their length, between 10 ms and 1 s', async (t) => {
  t.equal(checkEveryMs(60_000), 1000);
  t.equal(checkEveryMs(500), 50);
  t.equal(checkEveryMs(20), 10);
});
