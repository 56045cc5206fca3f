// The usage of a stream as it goes: what each server flavor can report on every chunk, and what the
// terminal asks for. A stream that ends early (the client left, the upstream failed, a stop string matched
// in the gateway) is billed from its last running usage: the server's own count of what it produced, not
// the character estimate (proxy/stream/usage-watch.ts, plugins/meter).
import type { ChatUsage } from '../../core/canonical.js';

declare module '../../core/exchange.js' {
  interface ExchangeLocals {
    /**
     * The upstream's last usage, running or final, of a non-streamed answer the terminal gathers from a stream
     * (answer-decoder.ts): what the server has produced so far, which the meter bills when the client leaves
     * before the answer is whole. Set by the terminal.
     */
    runningUsage: ChatUsage;
  }
}

/**
 * `continuous_usage_stats`: `stream_options.continuous_usage_stats` puts the usage on every chunk (vLLM,
 * SGLang). `timings_per_token`: llama-server's `timings` on every chunk, read as usage (llama-timings.ts).
 * `none`: usage only at the end (TGI, Ollama, OpenAI).
 */
export type RunningUsage = 'continuous_usage_stats' | 'timings_per_token' | 'none';

const USAGE_ONLY = { include_usage: true } as const;
const CONTINUOUS = { include_usage: true, continuous_usage_stats: true } as const;

/** The fields every upstream stream carries: the usage always (metering needs it), and the running usage where the server has it. */
export function streamFields(kind: RunningUsage): Readonly<Record<string, unknown>> {
  switch (kind) {
    case 'continuous_usage_stats':
      return { stream_options: CONTINUOUS };
    case 'timings_per_token':
      return { stream_options: USAGE_ONLY, timings_per_token: true };
    case 'none':
      return { stream_options: USAGE_ONLY };
  }
}
