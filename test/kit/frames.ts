// What an encoder writes, as frames: the sink a test hands an encoder, so no test parses the gateway's own SSE.
import type { CanonicalEvent } from '../../core/canonical.js';
import type { FrameSink, StreamEncoder } from '../../core/dialect.js';

export interface Frame {
  /** The event name; null for a data-only frame (chat's openai wire). */
  readonly event: string | null;
  readonly data: string;
}

/** The frames one or more encoder calls write. */
export function framesOf(write: (out: FrameSink) => void): Frame[] {
  const frames: Frame[] = [];
  write({ frame: (event, data) => frames.push({ event, data }) });
  return frames;
}

/** A whole stream's frames: the encoder's start, each event, its end. */
export function encodeAll(encoder: StreamEncoder, events: readonly CanonicalEvent[]): Frame[] {
  return framesOf((out) => {
    encoder.start(out);
    for (const event of events) encoder.event(event, out);
    encoder.end(out);
  });
}
