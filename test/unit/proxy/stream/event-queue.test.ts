// proxy/stream/event-queue.ts: the source end of a push stream. Items go straight to a flowing reader, wait
// while it is paused, and a reader that falls behind pauses the producer.
import t from 'tap';
import { EventQueue, type ProducerFlow } from '../../../../proxy/stream/event-queue.js';
import type { Sink } from '../../../../core/event-stream.js';

function producer(log: string[]): ProducerFlow {
  return {
    pause: () => void log.push('producer pause'),
    resume: () => void log.push('producer resume'),
    cancel: () => void log.push('producer cancel'),
  };
}

function recorder(log: string[]): Sink<number> {
  return {
    onEvent: (item) => void log.push(`item ${item}`),
    onEnd: () => void log.push('end'),
    onError: (error) => void log.push(`error ${(error as Error).message}`),
  };
}

t.test('a flowing reader gets each item the moment it is pushed, then the end', async (t) => {
  const log: string[] = [];
  const queue = new EventQueue<number>(producer(log));
  queue.pipe(recorder(log));
  queue.push(1);
  log.push('after push');
  queue.push(2);
  queue.end();
  t.same(log, ['item 1', 'after push', 'item 2', 'end']);
});

t.test('items pushed before the reader attaches wait for it, in order', async (t) => {
  const log: string[] = [];
  const queue = new EventQueue<number>(producer(log));
  queue.push(1);
  queue.push(2);
  queue.end();
  queue.pipe(recorder(log));
  t.same(log, ['item 1', 'item 2', 'end']);
});

t.test(
  'a reader that pauses in the middle of a batch gets nothing more, not even the end, until it resumes',
  async (t) => {
    const log: string[] = [];
    const queue = new EventQueue<number>(producer(log));
    const sink = recorder(log);
    queue.pipe({ ...sink, onEvent: (item) => (sink.onEvent(item), item === 1 && queue.pause()) });
    queue.push(1);
    queue.push(2);
    queue.end();
    t.same(log, ['item 1']);
    queue.resume();
    t.same(log, ['item 1', 'item 2', 'end']);
  },
);

t.test('the producer is paused above the high-water mark and resumed once the reader has caught up', async (t) => {
  const log: string[] = [];
  const queue = new EventQueue<number>(producer(log));
  queue.pipe(recorder([]));
  queue.pause();
  for (let item = 0; item < 32; item++) queue.push(item);
  t.same(log, ['producer pause']);
  t.equal(queue.producerPaused, true);
  queue.resume();
  t.same(log, ['producer pause', 'producer resume']);
  t.equal(queue.producerPaused, false);
});

t.test('a failure reaches the reader after the items before it', async (t) => {
  const log: string[] = [];
  const queue = new EventQueue<number>(producer(log));
  queue.push(1);
  queue.fail(new Error('cut'));
  queue.push(2);
  queue.pipe(recorder(log));
  t.same(log, ['item 1', 'error cut']);
});

t.test('a reader that cancels stops the producer and gets nothing more', async (t) => {
  const log: string[] = [];
  const queue = new EventQueue<number>(producer(log));
  queue.pipe(recorder(log));
  queue.push(1);
  await queue.cancel();
  queue.push(2);
  queue.end();
  t.same(log, ['item 1', 'producer cancel']);
});

t.test('a cancel after the end does not disturb the finished producer', async (t) => {
  const log: string[] = [];
  const queue = new EventQueue<number>(producer(log));
  queue.pipe(recorder(log));
  queue.end();
  await queue.cancel();
  t.same(log, ['end']);
});
