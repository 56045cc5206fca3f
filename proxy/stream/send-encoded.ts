import type { AnswerWatch } from './answer-watch.js';
import type { ResponseEvent } from '../../core/canonical.js';
import type { FrameSink, StreamEncoder } from '../../core/dialect.js';
import { asGatewayError, GatewayError } from '../../core/errors.js';
import type { EventStream, Sink } from '../../core/event-stream.js';

/** Where a streamed response's frames go (the encoder's sink): an HTTP response (proxy/respond.ts) or a WebSocket (proxy/socket/). */
export interface FrameTransport extends FrameSink {
  /** The writable whose full buffer pauses the events until its 'drain' (the response, or the upgraded socket). */
  readonly drained: {
    readonly writableNeedDrain: boolean;
    once(event: 'drain', listener: () => void): unknown;
    off(event: 'drain', listener: () => void): unknown;
  };
  /** After the last frame, when the client is still there. */
  end(): void;
}

/**
 * The sink at the end of the chain for a streamed response, whatever carries it: every event through
 * the dialect's encoder to the transport; a full buffer pauses the events (and so the upstream) until
 * 'drain'; an error after the start becomes the dialect's error event; a client that went away (the
 * signal) cancels the events. Settles once the stream is over and every stage of the chain has run its
 * end, with the error, if any. `started` runs once the start frame is written and the events piped;
 * `watch`, when given, sees each event the encoder gets.
 */
export function sendEncodedEvents(
  transport: FrameTransport,
  encoder: StreamEncoder,
  events: EventStream,
  signal: AbortSignal,
  watch: AnswerWatch | undefined,
  started: () => void = () => {},
): Promise<GatewayError | undefined> {
  return new Promise((resolve) => {
    let over = false;
    let waitingForDrain = false;
    const { drained } = transport;
    const onDrain = (): void => {
      waitingForDrain = false;
      if (!over) events.resume();
    };
    /** Once, however the stream ends: the error event (if any) and the end, unless the client is gone. */
    const close = (failure: GatewayError | undefined): void => {
      signal.removeEventListener('abort', onAbort);
      drained.off('drain', onDrain);
      if (signal.aborted) {
        resolve(undefined);
        return;
      }
      try {
        if (failure !== undefined) encoder.error(failure, transport);
      } catch {
        // The error event itself could not be encoded: the stream ends without it, and the failure stands.
      }
      transport.end();
      resolve(failure);
    };
    /** The reader stops before the end: the chain's stages run their ends first. */
    const stop = (failure: GatewayError | undefined): void => {
      over = true;
      events.cancel().then(
        () => close(failure),
        () => close(failure),
      );
    };
    const onAbort = (): void => {
      if (!over) stop(undefined);
    };
    signal.addEventListener('abort', onAbort);
    const sink: Sink<ResponseEvent> = {
      onEvent(event) {
        if (over) return;
        try {
          // A completion answers a non-streamed call: a streamed request's call streams.
          if (event.type === 'completion')
            throw new GatewayError('GW_ERR_INTERNAL', 'A whole completion reached an event stream.');
          watch?.see(event);
          encoder.event(event, transport);
        } catch (error) {
          stop(asGatewayError(error));
          return;
        }
        if (drained.writableNeedDrain && !waitingForDrain) {
          waitingForDrain = true;
          events.pause();
          drained.once('drain', onDrain);
        }
      },
      onEnd() {
        if (over) return;
        over = true;
        let failure: GatewayError | undefined;
        try {
          encoder.end(transport);
        } catch (error) {
          failure = asGatewayError(error);
        }
        close(failure);
      },
      onError(error) {
        if (over) return;
        over = true;
        close(asGatewayError(error));
      },
    };
    try {
      encoder.start(transport);
    } catch (error) {
      // The encoder failed before the events were read: a stream never started reaches none of the
      // plugins' ends (the meter's settlement, the rate limiter's output charge: proxy/stream/observe.ts) and
      // leaves the upstream open, so it is read to its end, unseen.
      over = true;
      const failure = asGatewayError(error);
      events.pipe({ onEvent: () => {}, onEnd: () => close(failure), onError: () => close(failure) });
      return;
    }
    events.pipe(sink);
    if (!over) started();
  });
}
