/** Items held before the producer is asked to pause; it is asked to resume once the reader has caught up. */
const HIGH_WATER = 32;

export interface QueueFlow {
  pause(): void;
  resume(): void;
  /** The reader stopped early: the producer should stop too (its returned promise: once it has). */
  cancel(): void | Promise<void>;
}

/**
 * A push-to-pull bridge: a producer pushes items synchronously, a reader takes them with `for await`
 * (proxy/stream/event-bridges.ts: a push stream read by an async loop, as the search loop reads its rounds).
 * One promise per item at most, and none while items are waiting; the producer is paused above the
 * high-water mark, so a slow reader slows the source.
 */
export class ItemQueue<T> implements AsyncIterableIterator<T> {
  readonly #items: T[] = [];
  #ended = false;
  #error: unknown = null;
  #paused = false;
  #waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | null = null;
  readonly #flow: QueueFlow;

  constructor(flow: QueueFlow) {
    this.#flow = flow;
  }

  /** Whether the producer was asked to pause and not yet to resume. */
  get paused(): boolean {
    return this.#paused;
  }

  push(item: T): void {
    const waiting = this.#waiting;
    if (waiting !== null) {
      this.#waiting = null;
      waiting.resolve({ done: false, value: item });
      return;
    }
    this.#items.push(item);
    if (!this.#paused && this.#items.length >= HIGH_WATER) {
      this.#paused = true;
      this.#flow.pause();
    }
  }

  end(): void {
    this.#ended = true;
    this.#settleWaiting();
  }

  fail(error: unknown): void {
    if (this.#ended || this.#error !== null) return;
    this.#error = error;
    this.#settleWaiting();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#items.length > 0) {
      const value = this.#items.shift() as T;
      if (this.#paused && this.#items.length <= HIGH_WATER / 2) {
        this.#paused = false;
        this.#flow.resume();
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  async return(): Promise<IteratorResult<T>> {
    const stopping = !this.#ended && this.#error === null;
    this.#ended = true;
    this.#items.length = 0;
    this.#settleWaiting();
    if (stopping) await this.#flow.cancel();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #settleWaiting(): void {
    const waiting = this.#waiting;
    if (waiting === null) return;
    this.#waiting = null;
    if (this.#error !== null) waiting.reject(this.#error);
    else waiting.resolve({ done: true, value: undefined });
  }
}
