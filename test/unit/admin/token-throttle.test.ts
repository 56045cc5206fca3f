// The admin token throttle (admin/token-throttle.ts): failed attempts per address, in a window that
// starts with the first failure; a bounded memory of addresses.
import t from 'tap';
import { AdminError } from '../../../admin/errors.js';
import { TokenThrottle } from '../../../admin/token-throttle.js';

const refusal = (throttle: TokenThrottle, address: string): AdminError | undefined => {
  try {
    throttle.check(address);
    return undefined;
  } catch (error) {
    if (error instanceof AdminError) return error;
    throw error;
  }
};

t.test(
  'after 10 failures within a minute of the first, the address gets 429 with retry-after until that minute has passed',
  async (t) => {
    let now = 1_000_000;
    const throttle = new TokenThrottle({ now: () => now });
    for (let i = 0; i < 9; i++) throttle.failed('10.0.0.1');
    t.equal(refusal(throttle, '10.0.0.1'), undefined, '9 failures: still allowed');
    now += 30_000;
    throttle.failed('10.0.0.1');
    t.match(
      refusal(throttle, '10.0.0.1'),
      { status: 429, code: 'too_many_requests', headers: { 'retry-after': '30' } },
      'the 10th: refused for the rest of the window',
    );
    t.equal(refusal(throttle, '10.0.0.2'), undefined, 'another address is not');
    now += 29_999;
    t.match(refusal(throttle, '10.0.0.1'), { headers: { 'retry-after': '1' } });
    now += 1;
    t.equal(refusal(throttle, '10.0.0.1'), undefined, 'the window has passed');
    throttle.failed('10.0.0.1');
    t.equal(refusal(throttle, '10.0.0.1'), undefined, 'a new window, with one failure');
  },
);

t.test('failures spread over separate windows never add up', async (t) => {
  let now = 0;
  const throttle = new TokenThrottle({ now: () => now });
  for (let minute = 0; minute < 5; minute++) {
    for (let i = 0; i < 9; i++) throttle.failed('10.0.0.1');
    t.equal(refusal(throttle, '10.0.0.1'), undefined, `minute ${minute}: 9 failures`);
    now += 60_000;
  }
});

t.test('at most maxAddresses addresses are remembered: the oldest window is forgotten first', async (t) => {
  let now = 0;
  const throttle = new TokenThrottle({ maxFailures: 2, maxAddresses: 3, now: () => now });
  for (const address of ['a', 'b', 'c']) {
    throttle.failed(address);
    throttle.failed(address);
    now += 1;
  }
  t.ok(refusal(throttle, 'a') && refusal(throttle, 'b') && refusal(throttle, 'c'), 'three addresses throttled');
  for (let i = 0; i < 100_000; i++) throttle.failed(`spoofed-${i}`);
  t.equal(throttle.size, 3, 'the map does not grow past its bound');
  t.equal(refusal(throttle, 'a'), undefined, 'the oldest were dropped to make room');
});
