import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../../core/errors.js';
import type { Replica } from './replica.js';
import { EventQueue } from '../stream/event-queue.js';
import type { Source } from '../../core/event-stream.js';
import { streamReadError } from '../../core/upstream-errors.js';

/** Body chunks held before a reader attaches; past this the socket is paused. */
const EARLY_LIMIT = 16;

/** Turns body bytes into items as they arrive, synchronously; throws a GatewayError on bad data. */
export interface BodyDecoder<T> {
  push(chunk: Buffer, emit: (item: T) => void): void;
  end(emit: (item: T) => void): void;
  /** True once the items so far make a whole answer, so that a connection lost after them loses no output. */
  complete?(): boolean;
  /** The answer is whole before the body's end (a stop string matched in the gateway): the rest is not read, the request is aborted. */
  stopped?(): boolean;
  /** The body ends early but the answer is whole (`complete` or `stopped`): the items still held go out. */
  finish?(emit: (item: T) => void): void;
}

/**
 * One upstream response, as an undici dispatch handler (the leanest undici API: no stream objects).
 * `started` settles when the status and headers arrive. The body is read once, through a decoder that
 * runs inside the socket's data callback and pushes each decoded item on at once (proxy/stream/event-queue.ts):
 * no promise per item; the reader's pace pauses and resumes the socket, and a reader that stops early
 * aborts the request.
 * Until undici gives the request a connection (`onRequestStart`) it is queued: aborting it then rejects
 * `started` at once, and the request is dropped the moment it would have been sent (undici's own way).
 */
export class UpstreamResponse implements Dispatcher.DispatchHandler {
  statusCode = 0;
  headers: IncomingHttpHeaders = {};
  readonly started: Promise<void>;
  #resolveStarted!: () => void;
  #rejectStarted!: (error: Error) => void;
  #controller: Dispatcher.DispatchController | null = null;
  /** Bytes that arrived before a reader was attached. */
  #early: Buffer[] = [];
  #reader: Reader | null = null;
  #done = false;
  #error: Error | null = null;
  /** Set when the request was aborted while it still waited for a connection. */
  #abandoned: Error | null = null;
  /** The gateway aborted the request (the client left, a reader stopped, a shutdown, bad data). */
  #aborted = false;
  /** Why the gateway aborted it when the upstream was to blame: data it could not decode. */
  #badData: Error | undefined = undefined;
  /** The reader got its end before the body's: the decoder stopped it. */
  #readerEnded = false;
  readonly #settled: (failure: Error | undefined) => void;
  /** The replica that answers (set by the pool). */
  replica: Replica | undefined = undefined;

  /**
   * `settled` runs once, when the response ends or fails: with the failure when the upstream's side
   * failed it (the connection, a timeout, bad data), undefined when it ended or the gateway let it go.
   */
  constructor(settled: (failure: Error | undefined) => void) {
    this.#settled = settled;
    this.started = new Promise((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
  }

  /** Dispatched, and still waiting for a connection of the pool. */
  get queued(): boolean {
    return this.#controller === null && !this.#done;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abandoned !== null) controller.abort(this.#abandoned);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.statusCode = statusCode;
    this.headers = headers;
    this.#resolveStarted();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#reader !== null) {
      if (this.#decode(this.#reader.push, chunk) && this.#reader.stopped()) this.#stopReading(this.#reader);
      return;
    }
    // Nobody reads yet: hold a little, then make the upstream wait rather than memory grow.
    this.#early.push(chunk);
    if (this.#early.length >= EARLY_LIMIT) controller.pause();
  }

  onResponseEnd(): void {
    this.#done = true;
    this.#settled(undefined);
    const reader = this.#reader;
    if (reader !== null && !this.#readerEnded && this.#decode(reader.end)) reader.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#error = error;
    this.#rejectStarted(error);
    if (!this.#done) this.#settled(this.#aborted ? this.#badData : error);
    this.#done = true;
    if (this.#reader !== null) this.#broken(this.#reader, error);
  }

  abort(reason: Error): void {
    if (this.#done) return;
    this.#aborted = true;
    if (this.#controller !== null) {
      this.#controller.abort(reason);
      return;
    }
    this.#abandoned ??= reason;
    this.#rejectStarted(reason);
  }

  /** Reads the body through `decoder`, as a push stream of its items; call once. */
  read<T>(decoder: BodyDecoder<T>): Source<T> {
    const controller = (): Dispatcher.DispatchController | null => this.#controller;
    const queue = new EventQueue<T>({
      pause: () => controller()?.pause(),
      resume: () => controller()?.resume(),
      cancel: () => this.abort(new Error('the reader stopped before the end of the response')),
    });
    const emit = (item: T): void => queue.push(item);
    const reader: Reader = {
      push: (chunk) => decoder.push(chunk!, emit),
      end: () => decoder.end(emit),
      fail: (error) => queue.fail(error),
      finish: () => queue.end(),
      complete: () => decoder.complete?.() ?? false,
      stopped: () => decoder.stopped?.() ?? false,
      wrapUp: () => decoder.finish?.(emit),
    };
    this.#reader = reader;
    const early = this.#early;
    this.#early = [];
    for (const chunk of early) {
      if (!this.#decode(reader.push, chunk)) return queue;
      if (reader.stopped()) {
        this.#stopReading(reader);
        return queue;
      }
    }
    if (this.#controller?.paused && !queue.producerPaused) this.#controller.resume();
    if (this.#error !== null) this.#broken(reader, this.#error);
    else if (this.#done && this.#decode(reader.end)) queue.end();
    return queue;
  }

  /**
   * The whole body as text (error bodies, non-streamed completions), of at most `maxBytes`: a longer
   * one is not held; the request is aborted and this rejects with GW_ERR_UPSTREAM_BAD_RESPONSE.
   */
  text(maxBytes: number): Promise<string> {
    const parts: Buffer[] = [];
    let size = 0;
    const decoder: BodyDecoder<string> = {
      push: (chunk) => {
        size += chunk.length;
        if (size > maxBytes) throw bodyTooLarge(maxBytes);
        parts.push(chunk);
      },
      end: (emit) => emit(Buffer.concat(parts, size).toString('utf8')),
    };
    return new Promise((resolve, reject) =>
      this.read(decoder).pipe({ onEvent: resolve, onEnd: () => resolve(''), onError: reject }),
    );
  }

  /** The connection failed under a reader: an error for it, unless it already has the whole answer (only the usage or [DONE] lost). */
  #broken(reader: Reader, error: Error): void {
    if (this.#readerEnded) return;
    if (!reader.complete()) reader.fail(streamReadError(error));
    else if (this.#decode(reader.wrapUp)) reader.finish();
  }

  /** The decoder has the whole answer before the body's end: the reader ends, and the request is aborted (not a failure). */
  #stopReading(reader: Reader): void {
    this.#readerEnded = true;
    if (this.#decode(reader.wrapUp)) reader.finish();
    this.abort(new Error('the answer ended in the gateway (a stop string)'));
  }

  /** Runs a decoder step; a decoding error fails the reader and aborts the request. */
  #decode(step: (chunk?: Buffer) => void, chunk?: Buffer): boolean {
    try {
      step(chunk);
      return true;
    } catch (error) {
      this.#reader?.fail(error);
      this.#badData = error instanceof Error ? error : new Error(String(error));
      this.abort(this.#badData);
      return false;
    }
  }
}

export function bodyTooLarge(maxBytes: number): GatewayError {
  return new GatewayError('GW_ERR_UPSTREAM_BAD_RESPONSE', `The model server's answer exceeds ${maxBytes} bytes.`);
}

/** The attached reader, as closures over its decoder and queue. */
interface Reader {
  push(chunk?: Buffer): void;
  end(): void;
  fail(error: unknown): void;
  finish(): void;
  complete(): boolean;
  stopped(): boolean;
  wrapUp(): void;
}
