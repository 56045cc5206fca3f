// The primary's shared objects and a worker's link to them, over an in-memory channel pair that clones
// messages as node:cluster's advanced serialization does.
import { EventEmitter } from 'node:events';
import t from 'tap';
import { PrimaryLink } from '../../../cluster/primary-link.js';
import { SharedHost, type WorkerChannel } from '../../../cluster/shared-host.js';

/** A worker's process and the primary's view of it, joined: what one sends the other receives, cloned. */
function channelPair(): { worker: EventEmitter & { send(message: unknown): boolean }; primarySide: WorkerChannel } {
  const worker = new EventEmitter() as EventEmitter & { send(message: unknown): boolean };
  const primarySide = new EventEmitter() as EventEmitter & WorkerChannel;
  worker.send = (message) => {
    queueMicrotask(() => primarySide.emit('message', structuredClone(message)));
    return true;
  };
  primarySide.send = (message) => {
    queueMicrotask(() => worker.emit('message', structuredClone(message)));
    return true;
  };
  return { worker, primarySide };
}

class Counter {
  #count = 0;
  constructor(readonly step: number) {}
  add(times: number): number {
    this.#count += this.step * times;
    return this.#count;
  }
  fail(): never {
    throw new Error('this counter refuses');
  }
}

function node(workers: number): PrimaryLink[] {
  const host = new SharedHost({ counter: (step) => new Counter(Number(step || 1)) });
  return Array.from({ length: workers }, () => {
    const { worker, primarySide } = channelPair();
    host.attach(primarySide);
    return new PrimaryLink(worker);
  });
}

t.test('every worker calls the one object of a name, made on its first call from the name', async (t) => {
  const [first, second] = node(2);
  t.equal(await first!.call('counter:5', 'add', [1]), 5);
  t.equal(await second!.call('counter:5', 'add', [2]), 15, "the second worker counts on the first's");
  t.equal(await second!.call('counter', 'add', [1]), 1, 'another name is another object');
});

t.test("a call's error reaches the caller as a rejection; an unknown kind or method too", async (t) => {
  const [link] = node(1);
  await t.rejects(link!.call('counter', 'fail', []), /this counter refuses/);
  await t.rejects(link!.call('counter', 'missing', []), /no method missing/);
  await t.rejects(link!.call('gauge', 'add', [1]), /no shared object of kind 'gauge'/);
});

t.test('an announcement reaches every worker, the sender too', async (t) => {
  const links = node(3);
  const heard = links.map(() => [] as unknown[]);
  links.forEach((link, index) => link.subscribe('news', (value) => heard[index]!.push(value)));
  links[1]!.publish('news', 'key_1');
  await links[1]!.call('counter', 'add', [0]); // the relay went out before this answer
  await Promise.all(links.map((link) => link.call('counter', 'add', [0])));
  t.same(heard, [['key_1'], ['key_1'], ['key_1']]);
});

t.test('calls under way when the primary is gone are rejected, and later calls too', async (t) => {
  const { worker } = channelPair();
  const link = new PrimaryLink(worker);
  const pending = link.call('counter', 'add', [1]);
  worker.emit('disconnect');
  await t.rejects(pending, /primary process is gone/);
  await t.rejects(link.call('counter', 'add', [1]), /primary process is gone/);
  t.equal(link.connected, false);
});
