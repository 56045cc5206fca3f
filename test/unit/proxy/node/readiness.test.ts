// GET /ready's answer (proxy/node/readiness.ts): every check ok and not draining; results cached; each check bounded.
import t from 'tap';
import { Readiness, type ReadinessCheck } from '../../../../proxy/node/readiness.js';
import { TestClock } from '../../../helpers/clock.js';

function counted(name: string, probe: () => unknown): ReadinessCheck & { calls: number } {
  const check = {
    name,
    calls: 0,
    probe() {
      check.calls++;
      return probe();
    },
  };
  return check;
}

const options = (clock: TestClock, draining = () => false) => ({
  cacheMs: 1000,
  timeoutMs: 50,
  draining,
  now: clock.now,
});

t.test('ready when every check is ok, with each check named in the body', async (t) => {
  const readiness = new Readiness(
    [counted('store', async () => undefined), counted('redis', () => undefined)],
    options(new TestClock()),
  );
  t.same(await readiness.answer(), {
    ready: true,
    body: { status: 'ready', checks: { store: 'ok', redis: 'ok', draining: false } },
  });
});

t.test('a check that fails makes the node unready and is named unreachable', async (t) => {
  const readiness = new Readiness(
    [
      counted('store', async () => undefined),
      counted('redis', () => {
        throw new Error('down');
      }),
    ],
    options(new TestClock()),
  );
  t.same(await readiness.answer(), {
    ready: false,
    body: { status: 'unready', checks: { store: 'ok', redis: 'unreachable', draining: false } },
  });
});

t.test('a check that does not answer within the timeout is named timeout: the probe does not hang', async (t) => {
  const readiness = new Readiness([counted('store', () => new Promise(() => {}))], options(new TestClock()));
  t.same((await readiness.answer()).body, { status: 'unready', checks: { store: 'timeout', draining: false } });
});

t.test('a result is reused for cacheMs: probes within it make no check; concurrent probes share one', async (t) => {
  const clock = new TestClock();
  const store = counted('store', async () => undefined);
  const readiness = new Readiness([store], options(clock));
  await Promise.all([readiness.answer(), readiness.answer(), readiness.answer()]);
  t.equal(store.calls, 1, 'three concurrent probes, one check');
  clock.advance(999);
  await readiness.answer();
  t.equal(store.calls, 1, 'within the cache time: no check');
  clock.advance(1);
  await readiness.answer();
  t.equal(store.calls, 2, 'after it: checked again');
});

t.test('a draining node is unready at once, without running its checks', async (t) => {
  let draining = false;
  const store = counted('store', async () => undefined);
  const readiness = new Readiness(
    [store],
    options(new TestClock(), () => draining),
  );
  t.equal((await readiness.answer()).ready, true);
  draining = true;
  t.same(await readiness.answer(), { ready: false, body: { status: 'unready', checks: { draining: true } } });
  t.equal(store.calls, 1);
});
