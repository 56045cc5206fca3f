// The rate-limit counters hold whatever amount they are given: no figure can make a later call fail.
import t from 'tap';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { LimiterWindow, MAX_STEP } from '../../plugins/ratelimit/limiter-window.js';
import { memoryWindow } from '../../plugins/ratelimit/memory-window.js';

t.test('regression: an output charge of 1e18 leaves every later operation of the window answering', async (t) => {
  const window = memoryWindow(60);
  const charged = await window.consume('output', 'org', 1e18);
  t.equal(charged.used, MAX_STEP, 'the charge is clamped');
  t.equal((await window.read('output', 'org')).used, MAX_STEP, 'a read still answers');
  t.equal((await window.consume('output', 'org', 5)).used, MAX_STEP + 5, 'so does the next charge');
});

t.test('amounts are whole numbers: fractions round, NaN counts nothing, infinities clamp', async (t) => {
  const window = memoryWindow(60);
  t.equal((await window.consume('input', 'org', 2.6)).used, 3);
  t.equal((await window.consume('input', 'org', Number.NaN)).used, 3);
  t.equal((await window.adjust('input', 'org', -1.4)).used, 2);
  t.equal((await window.adjust('input', 'org', Number.NEGATIVE_INFINITY)).used, 0, 'a counter never goes below zero');
  t.equal((await window.adjust('output', 'org', Number.POSITIVE_INFINITY)).used, MAX_STEP);
});

t.test("a counter past the limiter's points is answered with its state, not thrown", async (t) => {
  // The library rejects once its points are passed; with points this small the path is reachable.
  const limiter = (kind: string): RateLimiterMemory =>
    new RateLimiterMemory({ keyPrefix: kind, points: 5, duration: 60 });
  const window = new LimiterWindow(
    { requests: limiter('requests'), input: limiter('input'), output: limiter('output') },
    60,
  );
  t.equal((await window.consume('requests', 'org', 10)).used, 10);
  t.equal((await window.read('requests', 'org')).used, 10);
});
