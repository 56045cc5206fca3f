// Between push streams and async iteration, for code that is clearer as a loop than as callbacks and
// is not on the per-token path of an ordinary request: the search loop (its rounds wait on searches
// and model calls anyway), a non-streamed call's one completion, and tests.
import type { Source, Sink } from '../../core/event-stream.js';
import { ItemQueue } from './item-queue.js';

/** A push stream of what an async iterable yields; cancelling it returns the iterator (its `finally` runs). A source stays itself. */
export function streamOf<T>(items: AsyncIterable<T>): Source<T> {
  return isSource(items) ? items : new IterableSource(items);
}

function isSource<T>(items: AsyncIterable<T>): items is Source<T> {
  return typeof (items as Partial<Source<T>>).pipe === 'function';
}

/** Reads a push stream with `for await`; leaving the loop early cancels the stream (and waits for it). */
export function iterate<T>(source: Source<T>): AsyncIterableIterator<T> {
  const queue = new ItemQueue<T>({
    pause: () => source.pause(),
    resume: () => source.resume(),
    cancel: () => source.cancel(),
  });
  source.pipe({
    onEvent: (item) => queue.push(item),
    onEnd: () => queue.end(),
    onError: (error) => queue.fail(error),
  });
  return queue;
}

class IterableSource<T> implements Source<T> {
  readonly #items: AsyncIterable<T>;
  #iterator: AsyncIterator<T> | undefined = undefined;
  #paused = false;
  #wake: (() => void) | undefined = undefined;
  #cancelled = false;

  constructor(items: AsyncIterable<T>) {
    this.#items = items;
  }

  pipe(sink: Sink<T>): void {
    this.#iterator = this.#items[Symbol.asyncIterator]();
    void this.#run(this.#iterator, sink);
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return iterate(this);
  }

  async cancel(): Promise<void> {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#wake?.();
    await this.#iterator?.return?.();
  }

  async #run(iterator: AsyncIterator<T>, sink: Sink<T>): Promise<void> {
    try {
      for (;;) {
        while (this.#paused && !this.#cancelled) await new Promise<void>((wake) => (this.#wake = wake));
        if (this.#cancelled) return;
        const step = await iterator.next();
        if (this.#cancelled) return;
        if (step.done === true) {
          sink.onEnd();
          return;
        }
        sink.onEvent(step.value);
      }
    } catch (error) {
      if (!this.#cancelled) sink.onError(error);
    }
  }
}
