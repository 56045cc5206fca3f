import type { EventStream } from '../../core/event-stream.js';

/** The part of a gauge a count needs (prom-client's Gauge, telemetry/metrics.ts). */
export interface UpDown {
  inc(): void;
  dec(): void;
}

/**
 * The events a door sends, counted in `gauge` while they are paused. A door pauses a stream only
 * when the client's socket is full (proxy/stream/send-encoded.ts waits for its 'drain'), so the
 * gauge is the number of streams the clients hold back. `release` takes a stream still paused out of
 * the count once it is over, however it ended.
 */
export function countClientWaits(events: EventStream, gauge: UpDown): { events: EventStream; release(): void } {
  let paused = false;
  const release = (): void => {
    if (!paused) return;
    paused = false;
    gauge.dec();
  };
  return {
    events: {
      pipe: (sink) => events.pipe(sink),
      pause() {
        if (!paused) {
          paused = true;
          gauge.inc();
        }
        events.pause();
      },
      resume() {
        release();
        events.resume();
      },
      cancel: () => events.cancel(),
      [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    },
    release,
  };
}
