// proxy/stream/event-stage.ts: a step of the response between a source and its reader. It passes events on
// synchronously, holds the flow on a promise when it must wait, and finishes exactly once, before the
// reader sees the end.
import t from 'tap';
import type { ResponseEvent } from '../../../../core/canonical.js';
import { EventQueue } from '../../../../proxy/stream/event-queue.js';
import { EventStage, type EventsEnd } from '../../../../proxy/stream/event-stage.js';
import type { Sink } from '../../../../core/event-stream.js';

function event(id: string): ResponseEvent {
  return { type: 'search_call', id, query: '' };
}

/** Holds the event `held` until `release` is called; logs what it sees and how it ended. */
class Holding extends EventStage {
  readonly log: string[];
  release: () => void = () => {};
  readonly #held: string;

  constructor(source: EventQueue<ResponseEvent>, held: string, log: string[]) {
    super(source);
    this.#held = held;
    this.log = log;
  }

  protected take(taken: ResponseEvent): void {
    const id = taken.type === 'search_call' ? taken.id : '?';
    if (id !== this.#held) {
      this.emit(taken);
      return;
    }
    this.log.push(`holding ${id}`);
    this.hold(new Promise<void>((resolve) => (this.release = resolve)), () => this.emit(taken));
  }

  protected finish(end: EventsEnd): void {
    this.log.push(`finish ${end.kind}`);
  }
}

function reader(log: string[], ended?: () => void): Sink<ResponseEvent> {
  return {
    onEvent: (seen) => void log.push(`reader ${seen.type === 'search_call' ? seen.id : '?'}`),
    onEnd: () => {
      log.push('reader end');
      ended?.();
    },
    onError: (error) => void log.push(`reader error ${(error as Error).message}`),
  };
}

const flow = { pause() {}, resume() {}, cancel() {} };

t.test('a held event stops the flow: the events after it and the end wait until the promise settles', async (t) => {
  const log: string[] = [];
  const source = new EventQueue<ResponseEvent>(flow);
  const stage = new Holding(source, 'b', log);
  const ended = new Promise<void>((resolve) => stage.pipe(reader(log, resolve)));
  source.push(event('a'));
  source.push(event('b'));
  source.push(event('c'));
  source.end();
  t.same(log, ['reader a', 'holding b']);
  stage.release();
  await ended;
  t.same(log, ['reader a', 'holding b', 'reader b', 'reader c', 'finish ended', 'reader end']);
});

t.test('a reader that paused during a hold stays paused after it', async (t) => {
  const log: string[] = [];
  const source = new EventQueue<ResponseEvent>(flow);
  const stage = new Holding(source, 'a', log);
  stage.pipe(reader(log));
  source.push(event('a'));
  source.push(event('b'));
  stage.pause();
  stage.release();
  await Promise.resolve();
  await Promise.resolve();
  t.same(log, ['holding a', 'reader a'], 'the held event went on, the next one waits for the reader');
  stage.resume();
  t.same(log, ['holding a', 'reader a', 'reader b']);
});

t.test(
  'a reader that cancels during a hold: the stage finishes once, stopped, after the held work, and the held event never arrives',
  async (t) => {
    const log: string[] = [];
    const source = new EventQueue<ResponseEvent>(flow);
    const stage = new Holding(source, 'a', log);
    stage.pipe(reader(log));
    source.push(event('a'));
    const cancelled = stage.cancel();
    await Promise.resolve();
    log.push('held work done');
    stage.release();
    await cancelled;
    await stage.cancel();
    t.same(log, ['holding a', 'held work done', 'finish stopped']);
  },
);

t.test(
  'a rejected hold fails the events: the source is stopped, the stage finishes failed, the reader gets the error',
  async (t) => {
    const log: string[] = [];
    const cancelled: string[] = [];
    const source = new EventQueue<ResponseEvent>({ ...flow, cancel: () => void cancelled.push('source cancelled') });
    const stage = new (class extends Holding {
      protected override take(): void {
        this.hold(Promise.reject(new Error('commit failed')), () => {});
      }
    })(source, '', log);
    const failed = new Promise<void>((resolve) =>
      stage.pipe({
        ...reader(log),
        onError: (error) => (log.push(`reader error ${(error as Error).message}`), resolve()),
      }),
    );
    source.push(event('a'));
    await failed;
    t.same(cancelled, ['source cancelled']);
    t.same(log, ['finish failed', 'reader error commit failed']);
  },
);
