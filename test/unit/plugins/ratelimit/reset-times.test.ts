// The reset headers' times are written as Date#toISOString writes them, byte for byte, from a cache.
import t from 'tap';
import { ResetTimes } from '../../../../plugins/ratelimit/reset-times.js';

t.test('every instant is written as new Date(ms).toISOString() writes it, cached or not', async (t) => {
  const times = new ResetTimes();
  const now = Date.now();
  const instants = [
    now,
    now,
    now + 1,
    now + 60_000,
    Math.floor(now / 1000) * 1000,
    Math.floor(now / 1000) * 1000 + 999,
    now + 0.7,
    0,
    -1,
    -1001.5,
    Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    Date.UTC(10_000, 0, 1, 0, 0, 0, 5),
  ];
  // And a run through two windows' worth of milliseconds, as a busy node's resets come.
  for (let ms = now; ms < now + 3_000; ms += 7) instants.push(ms, ms);
  const differing = instants.filter((ms) => times.iso(ms) !== new Date(ms).toISOString());
  t.same(differing, [], `${instants.length} instants, none written otherwise`);
});
