// Watching the response without wrapping it. A plugin that only needs to see the events (the rate
// limiter's output charge, the meter's settlement) returns `observe(events, observer)` instead of a
// generator of its own. Observers of plugins next to each other in the chain join one pass over the
// events: each event crosses one generator, is counted once by one usage watch, and is shown to the
// observers in the order it would have crossed their wrappers (the inner plugin's first). A plugin
// that changes the events (promptcache, search) ends such a pass; the observers outside it start the
// next one, so every observer sees the events exactly as they leave its place in the chain.
import type { ResponseEvent } from './canonical.js';
import type { EventStream } from './plugin.js';
import { UsageWatch } from './usage-watch.js';

/** How the events ended: read to their end, stopped by their reader (the client went away, the encoder failed), or failed. */
export type EventsEnd = { kind: 'ended' } | { kind: 'stopped' } | { kind: 'failed'; error: unknown };

export interface EventObserver {
  /**
   * Sees each event before it goes on (the watch has already counted it). A returned promise holds the
   * event back until it settles: the meter commits the settlement before the final usage goes on.
   * A throw fails the events: the observers after this one do not see the event.
   */
  onEvent?(event: ResponseEvent, watch: UsageWatch): void | Promise<void>;
  /**
   * Runs exactly once when the events are over, however they ended, before their reader sees the end
   * (events never read never end: proxy/respond.ts reads those it could not send). A throw fails the
   * events for the observers after this one, and then for the reader.
   */
  onEnd?(end: EventsEnd, watch: UsageWatch): void | Promise<void>;
}

/** The events, with `observer` watching them: in the pass the events already are, when the plugin inside observes too. */
export function observe(events: EventStream, observer: EventObserver): EventStream {
  const observed = events instanceof ObservedEvents ? events : new ObservedEvents(events);
  observed.add(observer);
  return observed;
}

const ENDED: EventsEnd = { kind: 'ended' };
const STOPPED: EventsEnd = { kind: 'stopped' };

class ObservedEvents implements AsyncIterable<ResponseEvent> {
  readonly #events: EventStream;
  readonly #observers: EventObserver[] = [];
  /** The one pass, made when the events are first read (like a generator, they are read once). */
  #pass: AsyncGenerator<ResponseEvent> | undefined;

  constructor(events: EventStream) {
    this.#events = events;
  }

  add(observer: EventObserver): void {
    if (this.#pass !== undefined) throw new Error('an observer was added to events already being read');
    this.#observers.push(observer);
  }

  [Symbol.asyncIterator](): AsyncIterator<ResponseEvent> {
    this.#pass ??= this.#run();
    return this.#pass;
  }

  async *#run(): AsyncGenerator<ResponseEvent> {
    const observers = this.#observers;
    const watch = new UsageWatch();
    let end = STOPPED;
    try {
      for await (const event of this.#events) {
        watch.see(event);
        for (const observer of observers) {
          const held = observer.onEvent?.(event, watch);
          if (held !== undefined) await held;
        }
        yield event;
      }
      end = ENDED;
    } catch (error) {
      end = { kind: 'failed', error };
      throw error;
    } finally {
      await endAll(observers, end, watch);
    }
  }
}

/** Every observer's onEnd, in order, each once; the first throw is rethrown after the last. */
async function endAll(observers: readonly EventObserver[], end: EventsEnd, watch: UsageWatch): Promise<void> {
  let thrown: { error: unknown } | undefined;
  for (const observer of observers) {
    try {
      await observer.onEnd?.(end, watch);
    } catch (error) {
      end = { kind: 'failed', error };
      thrown ??= { error };
    }
  }
  if (thrown !== undefined) throw thrown.error;
}
