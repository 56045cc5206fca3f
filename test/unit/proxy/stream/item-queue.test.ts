import t from 'tap';
import { ItemQueue } from '../../../../proxy/stream/item-queue.js';

function flowLog(): { log: string[]; flow: { pause(): void; resume(): void; cancel(): void } } {
  const log: string[] = [];
  return {
    log,
    flow: {
      pause: () => void log.push('pause'),
      resume: () => void log.push('resume'),
      cancel: () => void log.push('cancel'),
    },
  };
}

t.test('items pushed before and after the reader waits arrive in order, then the end', async (t) => {
  const queue = new ItemQueue<number>(flowLog().flow);
  queue.push(1);
  const reading = (async () => {
    const seen: number[] = [];
    for await (const item of queue) seen.push(item);
    return seen;
  })();
  await new Promise((resolve) => setImmediate(resolve));
  queue.push(2);
  queue.push(3);
  queue.end();
  t.same(await reading, [1, 2, 3]);
});

t.test('a producer is paused above the high-water mark and resumed once the reader catches up', async (t) => {
  const { log, flow } = flowLog();
  const queue = new ItemQueue<number>(flow);
  for (let i = 0; i < 40; i++) queue.push(i);
  t.same(log, ['pause'], 'paused once, however many more arrive');
  for (let i = 0; i < 23; i++) await queue.next();
  t.same(log, ['pause'], 'still above half the mark');
  await queue.next();
  t.same(log, ['pause', 'resume']);
});

t.test('a failure reaches the reader after the items that came before it', async (t) => {
  const queue = new ItemQueue<number>(flowLog().flow);
  queue.push(1);
  queue.fail(new Error('cut'));
  t.same(await queue.next(), { done: false, value: 1 });
  await t.rejects(queue.next(), { message: 'cut' });
});

t.test('a reader that stops early cancels the producer', async (t) => {
  const { log, flow } = flowLog();
  const queue = new ItemQueue<number>(flow);
  queue.push(1);
  queue.push(2);
  for await (const item of queue) if (item === 1) break;
  t.same(log, ['cancel']);
});

t.test('a reader that stops after the end cancels nothing', async (t) => {
  const { log, flow } = flowLog();
  const queue = new ItemQueue<number>(flow);
  queue.push(1);
  queue.end();
  for await (const item of queue) void item;
  t.same(log, []);
});
