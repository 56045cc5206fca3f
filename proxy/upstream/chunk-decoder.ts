import type { CanonicalEvent, ChatChunk } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { SseReader, SseTooLargeError, type EventSourceMessage } from '../stream/sse.js';
import { scanTextChunk } from './chunk-scan.js';
import { isEmptyChunk } from './empty-chunk.js';
import type { BodyDecoder } from './upstream-response.js';

/**
 * An upstream chat-completions SSE stream → canonical chunk events, decoded as the bytes arrive. `check`
 * sees (and may correct) each chunk before it goes on: the usage check. A chunk left with nothing goes no further.
 */
export class ChunkDecoder implements BodyDecoder<CanonicalEvent> {
  readonly #reader: SseReader;
  readonly #check: (chunk: ChatChunk) => void;
  #emit: (event: CanonicalEvent) => void = () => {};
  #finished = false;

  constructor(maxEventBytes: number, check: (chunk: ChatChunk) => void) {
    this.#reader = new SseReader((message) => this.#onMessage(message), maxEventBytes);
    this.#check = check;
  }

  push(chunk: Buffer, emit: (event: CanonicalEvent) => void): void {
    this.#emit = emit;
    try {
      this.#reader.feed(chunk);
    } catch (error) {
      if (error instanceof SseTooLargeError)
        throw new GatewayError(
          'GW_ERR_UPSTREAM_BAD_RESPONSE',
          `The model server sent an oversized event: ${error.message}.`,
        );
      throw error;
    }
  }

  end(emit: (event: CanonicalEvent) => void): void {
    this.#emit = emit;
    this.#reader.end();
    // Some servers end without [DONE]; a stream that reached its finish_reason is complete all the same.
    if (!this.#finished)
      throw new GatewayError(
        'GW_ERR_UPSTREAM_STREAM_CUT',
        'The model server closed the stream before the response was complete.',
      );
  }

  /** The answer is whole once a finish_reason (or [DONE]) arrived; a connection lost after it loses at most the usage. */
  complete(): boolean {
    return this.#finished;
  }

  #onMessage(message: EventSourceMessage): void {
    if (message.data === '[DONE]') {
      this.#finished = true;
      return;
    }
    const chunk = parseChunk(message.data);
    if (!this.#finished && chunk.choices.some((choice) => choice.finish_reason)) this.#finished = true;
    this.#check(chunk);
    if (!isEmptyChunk(chunk)) this.#emit({ type: 'chunk', chunk });
  }
}

function parseChunk(data: string): ChatChunk {
  let parsed: unknown;
  try {
    const text = scanTextChunk(data);
    if (text !== undefined) return text;
    parsed = JSON.parse(data);
  } catch {
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent an event that is not JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent an event that is not an object.');
  const record = parsed as { choices?: unknown; error?: unknown; object?: unknown };
  if (record.error !== undefined || record.object === 'error')
    throw new GatewayError(
      'GW_ERR_UPSTREAM_FAILED',
      'The model server reported an error in the middle of the response.',
    );
  if (!Array.isArray(record.choices))
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent a chunk without choices.');
  if (!record.choices.every(hasDelta))
    throw new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', 'The model server sent a choice without a delta.');
  return parsed as ChatChunk;
}

function hasDelta(choice: unknown): boolean {
  return (
    typeof choice === 'object' &&
    choice !== null &&
    typeof (choice as { delta?: unknown }).delta === 'object' &&
    (choice as { delta?: unknown }).delta !== null
  );
}
