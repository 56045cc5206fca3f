import { iterate } from './event-bridges.js';
import type { Sink, Source } from '../../core/event-stream.js';

/** Items held before the producer is asked to pause; it is asked to resume once they are down to half. */
const HIGH_WATER = 32;

/** How a queue steers its producer (an upstream socket). */
export interface ProducerFlow {
  pause(): void;
  resume(): void;
  /** The reader stopped early: the producer should stop too. */
  cancel(): void;
}

const ENDED = { kind: 'ended' } as const;
type Terminal = typeof ENDED | { kind: 'failed'; error: unknown };

/**
 * The source end of a push stream: a producer pushes items (and then its end) synchronously; while the
 * reader flows and nothing waits, each goes straight to the sink. Items wait here while the reader is
 * paused or not attached yet, and the producer is paused above the high-water mark, so a slow client
 * slows the upstream.
 */
export class EventQueue<T> implements Source<T> {
  readonly #items: T[] = [];
  readonly #flow: ProducerFlow;
  #sink: Sink<T> | undefined = undefined;
  #terminal: Terminal | undefined = undefined;
  /** The reader's pause. */
  #paused = false;
  #producerPaused = false;
  #delivering = false;
  /** The sink got its end, or the reader cancelled: nothing more goes out. */
  #closed = false;

  constructor(flow: ProducerFlow) {
    this.#flow = flow;
  }

  /** Whether the producer was asked to pause and not yet to resume. */
  get producerPaused(): boolean {
    return this.#producerPaused;
  }

  push(item: T): void {
    if (this.#closed || this.#terminal !== undefined) return;
    const sink = this.#sink;
    if (sink !== undefined && !this.#paused && !this.#delivering && this.#items.length === 0) {
      sink.onEvent(item);
      return;
    }
    this.#items.push(item);
    if (!this.#producerPaused && this.#items.length >= HIGH_WATER) {
      this.#producerPaused = true;
      this.#flow.pause();
    }
  }

  end(): void {
    if (this.#terminal !== undefined) return;
    this.#terminal = ENDED;
    this.#deliver();
  }

  fail(error: unknown): void {
    if (this.#terminal !== undefined) return;
    this.#terminal = { kind: 'failed', error };
    this.#deliver();
  }

  pipe(sink: Sink<T>): void {
    this.#sink = sink;
    this.#deliver();
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#deliver();
  }

  cancel(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#items.length = 0;
      if (this.#terminal === undefined) this.#flow.cancel();
    }
    return Promise.resolve();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return iterate(this);
  }

  /** Hands the waiting items, then the end, to the sink, until the reader pauses. */
  #deliver(): void {
    const sink = this.#sink;
    if (sink === undefined || this.#delivering) return;
    this.#delivering = true;
    try {
      while (!this.#paused && !this.#closed) {
        if (this.#items.length > 0) {
          const item = this.#items.shift() as T;
          if (this.#producerPaused && this.#items.length <= HIGH_WATER / 2) {
            this.#producerPaused = false;
            this.#flow.resume();
          }
          sink.onEvent(item);
          continue;
        }
        const terminal = this.#terminal;
        if (terminal !== undefined) {
          this.#closed = true;
          if (terminal.kind === 'ended') sink.onEnd();
          else sink.onError(terminal.error);
        }
        break;
      }
    } finally {
      this.#delivering = false;
    }
  }
}
