// What every token counter is (token-counter.ts makes the one the config names).
import type { ChatRequest } from '../core/canonical.js';

export interface TokenCounter {
  /**
   * The prompt tokens the upstream reports for this request (OpenAI's `prompt_tokens`; Anthropic's
   * `input_tokens` + cache fields). Rejects with a GatewayError: GW_ERR_REQUEST_INVALID when the
   * conversation cannot be rendered (the upstream would refuse it too), GW_ERR_UPSTREAM_* when the
   * upstream's endpoint fails; with the signal's reason when aborted.
   */
  count(request: ChatRequest, signal?: AbortSignal): Promise<number>;
  readonly source: 'upstream' | 'local' | 'tiktoken';
  /** false for the tiktoken approximation. */
  readonly exact: boolean;
  /**
   * Loads now what would otherwise load on first need (the in-process sources' model, and their
   * worker threads, started by the first large conversation); the gateway may call it at start.
   */
  warmUp?(): Promise<void>;
  /** Counts waiting for a worker thread (0 for a counter without workers), for the metrics. */
  queued(): number;
  /** Ends the worker threads or the upstream connections. */
  close(): Promise<void>;
}

/** Where the counter reports trouble that does not fail a count (pino's logger fits). */
export interface TokenCounterLog {
  warn(fields: object, message: string): void;
  debug?(fields: object, message: string): void;
}
