// An upstream's chat-completions stream as the events of the answer the client asked for: its chunks as
// they come (a streamed request), or one completion at the end (a non-streamed request read as a stream:
// answer-plan.ts). Where the gateway matches the stop strings itself (stop-matcher.ts), a match ends the
// answer: the decoder says it `stopped`, and the upstream response stops reading and aborts the call.
import { CompletionAccumulator } from '../stream/accumulate.js';
import type { CanonicalEvent, ChatChunk, ChatUsage, ResponseEvent } from '../../core/canonical.js';
import { chunkBytes } from '../stream/usage-watch.js';
import { ChunkDecoder } from './chunk-decoder.js';
import type { StopMatcher } from './stop-matcher.js';
import { bodyTooLarge, type BodyDecoder } from './upstream-response.js';

/** A non-streamed request's answer, gathered from the stream. */
export interface WholeAnswerOptions {
  /** The most text, reasoning and tool calls held (`upstream.max_body_bytes`): past it, a 502. */
  maxBytes: number;
  /** Each usage the upstream reports on the way, running or final: what it has produced so far. */
  running(usage: ChatUsage): void;
}

export interface AnswerDecoderOptions {
  maxEventBytes: number;
  /** Sees (and may correct) each chunk as it arrives, before the stop strings: the terminal's checks. */
  see(chunk: ChatChunk): void;
  /** The stop strings the gateway matches itself, when it does. */
  stops?: StopMatcher | undefined;
  /** Set for a non-streamed request: the answer goes on as one completion. */
  whole?: WholeAnswerOptions | undefined;
}

export class AnswerDecoder implements BodyDecoder<ResponseEvent> {
  readonly #chunks: ChunkDecoder;
  readonly #stops: StopMatcher | undefined;
  readonly #whole: WholeAnswerOptions | undefined;
  readonly #accumulator = new CompletionAccumulator();
  #heldBytes = 0;
  #emit: (event: ResponseEvent) => void = () => {};

  constructor(options: AnswerDecoderOptions) {
    this.#chunks = new ChunkDecoder(options.maxEventBytes, options.see);
    this.#stops = options.stops;
    this.#whole = options.whole;
  }

  push(bytes: Buffer, emit: (event: ResponseEvent) => void): void {
    this.#emit = emit;
    this.#chunks.push(bytes, this.#onEvent);
  }

  end(emit: (event: ResponseEvent) => void): void {
    this.#emit = emit;
    this.#chunks.end(this.#onEvent);
    this.finish(emit);
  }

  finish(emit: (event: ResponseEvent) => void): void {
    this.#emit = emit;
    this.#stops?.flush(this.#pass);
    if (this.#whole !== undefined) emit({ type: 'completion', completion: this.#accumulator.result() });
  }

  complete(): boolean {
    return this.stopped() || this.#chunks.complete();
  }

  stopped(): boolean {
    return this.#stops?.over ?? false;
  }

  readonly #onEvent = (event: CanonicalEvent): void => {
    if (event.type !== 'chunk') return;
    if (this.#stops === undefined) this.#pass(event.chunk);
    else this.#stops.see(event.chunk, this.#pass);
  };

  readonly #pass = (chunk: ChatChunk): void => {
    const whole = this.#whole;
    if (whole === undefined) {
      this.#emit({ type: 'chunk', chunk });
      return;
    }
    this.#heldBytes += chunkBytes(chunk);
    if (this.#heldBytes > whole.maxBytes) throw bodyTooLarge(whole.maxBytes);
    this.#accumulator.add(chunk);
    if (chunk.usage) whole.running(chunk.usage);
  };
}
