// The response side of the chain is push-based, the way undici's dispatch handlers and Envoy's encoder
// callbacks work: the upstream's decoder pushes each event through the stages (proxy/stream/event-stage.ts:
// the plugins' observers, the prompt-cache accounting) into the client's encoder with plain calls, so
// an event crosses the chain synchronously. Async stays only where something really waits: the
// upstream socket, the client socket's drain (pause/resume), and a stage that holds an event until a
// promise settles (the meter commits its settlement before the final usage goes on).
import type { ResponseEvent } from './canonical.js';

/** Where a source's items go. Each call is synchronous and never throws; a sink that cannot take more pauses its source. */
export interface Sink<T> {
  onEvent(item: T): void;
  /** The items are over; nothing follows. */
  onEnd(): void;
  /** The items failed; nothing follows. */
  onError(error: unknown): void;
}

/**
 * Items pushed to one sink, with flow control. A source can also be read with `for await` (once,
 * instead of `pipe`): a bridge through a queue (proxy/stream/event-bridges.ts), for code off the per-token
 * path (the search loop, plugins written as async generators, tests).
 */
export interface Source<T> extends AsyncIterable<T> {
  /** Starts the flow into `sink`; called once. Items may reach the sink during the call. */
  pipe(sink: Sink<T>): void;
  /** After this returns the sink gets no call (no item, no end) until `resume`. */
  pause(): void;
  resume(): void;
  /**
   * The reader stops before the end (the client went away, the encoder failed): the source stops
   * producing (an upstream call is aborted) and every stage on the way runs its end. Settles once they
   * have; the sink gets no call after it.
   */
  cancel(): Promise<void>;
}

/** The response of a generation: canonical events (a non-streamed call's: one completion). */
export type EventStream = Source<ResponseEvent>;
