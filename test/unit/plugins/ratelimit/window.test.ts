// The in-process rate-limit window: the rules every backend keeps, and windows that end by its clock.
import t from 'tap';
import { MemoryWindow } from '../../../../plugins/ratelimit/memory-window.js';
import { TestClock } from '../../../helpers/clock.js';
import { windowRules } from '../../../helpers/window-rules.js';

let orgs = 0;
windowRules(t, async () => ({ window: new MemoryWindow(60), orgId: `org-${++orgs}` }));

t.test(
  "a counter's window starts with its first use and lasts the window; then it starts again from zero",
  async (t) => {
    const clock = new TestClock();
    const window = new MemoryWindow(60, clock.now);
    const start = clock.now();
    t.same(await window.open('org', 1), {
      requests: { used: 1, resetAt: start + 60_000 },
      input: { used: 0, resetAt: start + 60_000 },
      output: { used: 0, resetAt: start + 60_000 },
    });
    clock.advance(30_000);
    t.same((await window.settle('org', undefined, 9)).output, { used: 9, resetAt: start + 60_000 }, 'the same window');
    clock.advance(30_000);
    t.same(
      (await window.open('org', 1)).requests,
      { used: 1, resetAt: start + 120_000 },
      'at its end, a new window from zero',
    );
  },
);
