// Counting in the gateway's own process, with the model's files or a tiktoken encoding: small
// conversations inline (a few KB tokenize in about a millisecond), large ones in a pool of worker
// threads so that tokenizing never holds up the event loop, and every other stream, for long.
// Nothing loads before a request needs it: a gateway whose requests never count pays no memory for
// the tokenizer (about 130 MB for Qwen3 on this thread, about 100 MB more per worker).
// - The first small conversation loads the model on this thread (Qwen3: about 0.5 s, once, during
//   which the event loop waits); concurrent first counts share that one load. A load that fails is
//   logged and every count that needs it answers GW_ERR_INTERNAL, until the gateway restarts.
// - The first worker starts with the first large conversation (or warmUp()), more as counts wait
//   (worker-pool.ts), each with its own copy. A large conversation never runs on the event loop:
//   the first one waits for the worker to load (about 1 s, once); only if it cannot start at all
//   (logged) is it counted inline.
import type { ChatRequest } from '../core/canonical.js';
import { GatewayError } from '../core/errors.js';
import { PromptError } from '../prompt/prompt-error.js';
import { promptInput } from './request-prompt.js';
import type { ModelSpec, PromptModel } from './prompt-model.js';
import type { TokenCounter, TokenCounterLog } from './counter.js';
import { WorkerPool } from './worker-pool.js';

export interface InProcessCounterOptions {
  source: 'local' | 'tiktoken';
  exact: boolean;
  /** Loads the model on this thread; called once, when a conversation is first counted inline. */
  load(): Promise<PromptModel>;
  /** What the workers load: the same model as `load()`. */
  spec: ModelSpec;
  /** 0: everything inline. */
  workers: number;
  /** A worker idle this long ends (0: never). */
  workerIdleMs: number;
  /** Each worker's heap at most, MB (0: V8's default); a conversation whose count needs more is refused. */
  workerHeapMb: number;
  /** Conversations whose JSON (messages, tools) is longer than this go to the pool. */
  thresholdBytes: number;
  log: TokenCounterLog | undefined;
}

export class InProcessCounter implements TokenCounter {
  readonly source: 'local' | 'tiktoken';
  readonly exact: boolean;
  readonly #options: InProcessCounterOptions;
  /** This thread's model, once a count needed it; rejected for good when it could not load. */
  #model: Promise<PromptModel> | null = null;
  /** The pool once started; null when it could not start (or the counter closed meanwhile). */
  #starting: Promise<WorkerPool | null> | null = null;
  /** The pool once it has started, for `queued()`. */
  #pool: WorkerPool | null = null;
  #closed = false;

  constructor(options: InProcessCounterOptions) {
    this.source = options.source;
    this.exact = options.exact;
    this.#options = options;
  }

  async count(request: ChatRequest, signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    const input = promptInput(request);
    try {
      if (this.#options.workers > 0) {
        // JSON length in UTF-16 units: bytes for ASCII text, a little under for other scripts.
        const json = JSON.stringify(input);
        if (json.length > this.#options.thresholdBytes) {
          const pool = this.#closed ? null : await this.#startPool();
          signal?.throwIfAborted();
          if (pool !== null) return await pool.count(json, signal);
          if (this.#closed) throw new Error('the tokenizer worker pool is closed');
          // The workers could not start (logged): counted here rather than not at all.
        }
      }
      const model = await this.#loadModel();
      signal?.throwIfAborted();
      return model.count(input);
    } catch (error) {
      throw countError(error, signal);
    }
  }

  /**
   * Loads now what the first counts would: the model on this thread, and the worker threads (resolves
   * once they have loaded it, or failed to: then counting stays inline). Rejects when the model
   * cannot load here.
   */
  async warmUp(): Promise<void> {
    if (this.#closed) return;
    await Promise.all([this.#loadModel(), this.#options.workers === 0 ? undefined : this.#startPool()]);
  }

  queued(): number {
    return this.#pool?.queued ?? 0;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pool = await this.#starting;
    await pool?.close();
  }

  #loadModel(): Promise<PromptModel> {
    this.#model ??= this.#options.load().catch((error: unknown) => {
      this.#options.log?.warn(
        { err: error },
        'token counter: the tokenizer did not load; counting tokens fails until the gateway restarts',
      );
      // The files' paths and the loader's words stay in the log.
      throw new GatewayError(
        'GW_ERR_INTERNAL',
        "Counting tokens is unavailable: the gateway's tokenizer could not be loaded.",
      );
    });
    return this.#model;
  }

  #startPool(): Promise<WorkerPool | null> {
    this.#starting ??= WorkerPool.start(this.#options.spec, {
      size: this.#options.workers,
      idleMs: this.#options.workerIdleMs,
      heapMb: this.#options.workerHeapMb,
      retired: () => this.#options.log?.debug?.({}, 'token counter: an idle worker thread ended, its memory freed'),
    }).then(
      async (pool) => {
        if (!this.#closed) {
          this.#pool = pool;
          return pool;
        }
        await pool.close();
        return null;
      },
      (error: unknown) => {
        this.#options.log?.warn(
          { err: error },
          'token counter: the worker threads did not start; large conversations are counted inline',
        );
        return null;
      },
    );
    return this.#starting;
  }
}

function countError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return error;
  if (error instanceof PromptError) {
    const message =
      error.stage === 'template'
        ? `The model's chat template refused the conversation: ${error.message}`
        : error.message;
    return new GatewayError('GW_ERR_REQUEST_INVALID', message, error.param);
  }
  if (error instanceof GatewayError) return error;
  return new GatewayError(
    'GW_ERR_INTERNAL',
    `Counting the prompt's tokens failed: ${error instanceof Error ? error.message : String(error)}`,
  );
}
