// Counting in the gateway's own process, with the model's files or a tiktoken encoding: small
// conversations inline (a few KB tokenize in about a millisecond), large ones in a pool of worker
// threads so that tokenizing never holds up the event loop, and every other stream, for long.
// The workers start with the first large conversation (or warmUp()): each holds its own copy of
// the tokenizer (about 120 MB for Qwen3), which a gateway that never sees one should not pay for.
// A large conversation never runs on the event loop: the first one waits for the workers to load
// (about 1 s, once); only if they cannot start at all (logged) is it counted inline.
import type { ChatRequest } from '../proxy/canonical.js';
import { GatewayError } from '../proxy/errors.js';
import { PromptError } from '../prompt/prompt-error.js';
import { promptInput } from './request-prompt.js';
import type { ModelSpec, PromptModel } from './prompt-model.js';
import type { TokenCounter, TokenCounterLog } from './counter.js';
import { WorkerPool } from './worker-pool.js';

export interface InProcessCounterOptions {
  source: 'local' | 'tiktoken';
  exact: boolean;
  model: PromptModel;
  /** What the workers load: the same model as `model`. */
  spec: ModelSpec;
  /** 0: everything inline. */
  workers: number;
  /** Conversations whose JSON (messages, tools) is longer than this go to the pool. */
  thresholdBytes: number;
  log: TokenCounterLog | undefined;
}

export class InProcessCounter implements TokenCounter {
  readonly source: 'local' | 'tiktoken';
  readonly exact: boolean;
  readonly #options: InProcessCounterOptions;
  /** The pool once started; null when it could not start (or the counter closed meanwhile). */
  #starting: Promise<WorkerPool | null> | null = null;
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
      return this.#options.model.count(input);
    } catch (error) {
      throw countError(error, signal);
    }
  }

  /** Starts the worker threads now; resolves once they have loaded the model (or failed to: then counting stays inline). */
  async warmUp(): Promise<void> {
    if (this.#options.workers === 0 || this.#closed) return;
    await this.#startPool();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pool = await this.#starting;
    await pool?.close();
  }

  #startPool(): Promise<WorkerPool | null> {
    this.#starting ??= WorkerPool.start(this.#options.spec, this.#options.workers).then(
      async (pool) => {
        if (!this.#closed) return pool;
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
