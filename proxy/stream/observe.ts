// Watching the response without changing it. A plugin that only needs to see the events (the rate
// limiter's output charge, the meter's settlement) returns `observe(events, observer)`. Observers of
// plugins next to each other in the chain join one stage: each event is counted once by one usage
// watch and shown to the observers in the order it would have crossed their plugins (the inner
// plugin's first). A plugin that changes the events (promptcache, search) ends such a stage; the
// observers outside it start the next one, so every observer sees the events exactly as they leave
// its place in the chain.
import type { ResponseEvent } from '../../core/canonical.js';
import { EventStage, type EventsEnd } from './event-stage.js';
import type { EventStream } from '../../core/event-stream.js';
import { UsageWatch } from './usage-watch.js';

export type { EventsEnd } from './event-stage.js';

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

/** The events, with `observer` watching them: in the stage the events already are, when the plugin inside observes too. */
export function observe(events: EventStream, observer: EventObserver): EventStream {
  const observed = events instanceof ObservedEvents ? events : new ObservedEvents(events);
  observed.add(observer);
  return observed;
}

class ObservedEvents extends EventStage {
  readonly #observers: EventObserver[] = [];
  readonly #watch = new UsageWatch();

  add(observer: EventObserver): void {
    if (this.piped) throw new Error('an observer was added to events already being read');
    this.#observers.push(observer);
  }

  protected take(event: ResponseEvent): void {
    this.#watch.see(event);
    this.#show(event, 0);
  }

  /** Shows the event to the observers from `first` on, then passes it on; an observer's promise holds it. */
  #show(event: ResponseEvent, first: number): void {
    const observers = this.#observers;
    for (let index = first; index < observers.length; index++) {
      const held = observers[index]!.onEvent?.(event, this.#watch);
      if (held !== undefined) {
        this.hold(held, () => this.#show(event, index + 1));
        return;
      }
    }
    this.emit(event);
  }

  /** Every observer's onEnd, in order, each once; the first throw is rethrown after the last. */
  protected async finish(end: EventsEnd): Promise<void> {
    let thrown: { error: unknown } | undefined;
    for (const observer of this.#observers) {
      try {
        await observer.onEnd?.(end, this.#watch);
      } catch (error) {
        end = { kind: 'failed', error };
        thrown ??= { error };
      }
    }
    if (thrown !== undefined) throw thrown.error;
  }
}
