import type { ResponseEvent } from '../../core/canonical.js';
import { iterate } from './event-bridges.js';
import type { EventStream, Sink } from '../../core/event-stream.js';

/** How the events ended: read to their end, stopped by their reader (the client went away, the encoder failed), or failed. */
export type EventsEnd = { kind: 'ended' } | { kind: 'stopped' } | { kind: 'failed'; error: unknown };

const ENDED: EventsEnd = { kind: 'ended' };
const STOPPED: EventsEnd = { kind: 'stopped' };

/**
 * A step between a source of events and its reader that sees (and may change) each event: a sink for
 * the source, a source for the reader. A subclass says what to do with an event (`take`: pass it on
 * with `emit`, or hold the flow on a promise with `hold`) and at the end (`finish`, which runs exactly
 * once, however the events ended, before the reader sees the end).
 */
export abstract class EventStage implements EventStream, Sink<ResponseEvent> {
  readonly #source: EventStream;
  #sink: Sink<ResponseEvent> | undefined = undefined;
  #readerPaused = false;
  #holding = false;
  /** The last hold, settled (its handlers never throw): a reader that cancels waits for it before the stage finishes. */
  #held: Promise<void> = Promise.resolve();
  /** Set once the end is under way (or the reader cancelled): the reader gets nothing more from `take`. */
  #finishing: Promise<void> | undefined = undefined;

  constructor(source: EventStream) {
    this.#source = source;
  }

  /** Whether the events are being read (a stage gets its setup before that). */
  protected get piped(): boolean {
    return this.#sink !== undefined;
  }

  /** One event from the source. A throw fails the events. */
  protected abstract take(event: ResponseEvent): void;

  /** The events are over; the reader sees the end once this settles. A throw (or rejection) fails the events for the reader. */
  protected abstract finish(end: EventsEnd): void | Promise<void>;

  /** Passes an event on to the reader. */
  protected emit(event: ResponseEvent): void {
    this.#sink?.onEvent(event);
  }

  /** Pauses the flow until `promise` settles, then runs `then` (a rejection fails the events). */
  protected hold(promise: Promise<unknown>, then: () => void): void {
    this.#holding = true;
    this.#source.pause();
    this.#held = promise.then(
      () => {
        this.#holding = false;
        if (this.#finishing !== undefined) return;
        try {
          then();
        } catch (error) {
          this.#fail(error);
          return;
        }
        if (!this.#holding && !this.#readerPaused) this.#source.resume();
      },
      (error: unknown) => {
        this.#holding = false;
        if (this.#finishing === undefined) this.#fail(error);
      },
    );
  }

  pipe(sink: Sink<ResponseEvent>): void {
    this.#sink = sink;
    this.#source.pipe(this);
  }

  pause(): void {
    this.#readerPaused = true;
    this.#source.pause();
  }

  resume(): void {
    this.#readerPaused = false;
    if (!this.#holding) this.#source.resume();
  }

  cancel(): Promise<void> {
    // A held event's work (the meter's commit) completes before the stage is told it stopped.
    this.#finishing ??= this.#source
      .cancel()
      .then(() => this.#held)
      .then(() => this.finish(STOPPED));
    return this.#finishing;
  }

  [Symbol.asyncIterator](): AsyncIterator<ResponseEvent> {
    return iterate(this);
  }

  onEvent(event: ResponseEvent): void {
    if (this.#finishing !== undefined) return;
    try {
      this.take(event);
    } catch (error) {
      this.#fail(error);
    }
  }

  onEnd(): void {
    this.#end(ENDED);
  }

  onError(error: unknown): void {
    this.#end({ kind: 'failed', error });
  }

  /** This stage failed the events: the source stops, the stage finishes, the reader gets the error. */
  #fail(error: unknown): void {
    if (this.#finishing !== undefined) return;
    const failed: EventsEnd = { kind: 'failed', error };
    this.#finishing = this.#source.cancel().then(() => this.#close(failed));
  }

  #end(end: EventsEnd): void {
    if (this.#finishing !== undefined) return;
    this.#finishing = this.#close(end);
  }

  /** Runs `finish`, then tells the reader: the end, or the failure (the one `finish` threw, else the events'). */
  async #close(end: EventsEnd): Promise<void> {
    let failure = end.kind === 'failed' ? { error: end.error } : undefined;
    try {
      await this.finish(end);
    } catch (error) {
      failure = { error };
    }
    if (failure === undefined) this.#sink?.onEnd();
    else this.#sink?.onError(failure.error);
  }
}
