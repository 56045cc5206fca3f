// How many of the completion tokens were reasoning (`completion_tokens_details.reasoning_tokens`, which the
// responses dialect shows as `output_tokens_details.reasoning_tokens`). vLLM and llama-server do not say,
// so the gateway counts, in this order:
// - the upstream's own figure, when it reports one (usage-check.ts keeps it only within completion_tokens);
// - streamed, with running usage on the chunks (vLLM's continuous_usage_stats, llama-server's timings):
//   the completion tokens on the last chunk that carried reasoning, i.e. when the reasoning ended;
// - streamed, without: the chunks that carried reasoning (each streamed chunk of vLLM and llama-server is
//   one decoded token);
// - not streamed: the reasoning's UTF-8 bytes / 3, the gateway's estimate elsewhere (usage-watch.ts);
// each capped by the completion tokens. An answer without reasoning gets no figure from the gateway.
import type { ChatChunk, ChatCompletion, ChatUsage } from '../../core/canonical.js';
import { BYTES_PER_TOKEN } from '../stream/usage-watch.js';

/** A streamed answer's reasoning tokens, set on every usage that comes after reasoning started. */
export class ReasoningCount {
  /** Chunks that carried reasoning. */
  #chunks = 0;
  /** The running completion tokens on the last chunk that carried reasoning, when it had them. */
  #atEnd: number | undefined = undefined;

  see(chunk: ChatChunk): void {
    if (chunk.choices.some((choice) => choice.delta.reasoning_content || choice.delta.reasoning)) {
      this.#chunks++;
      this.#atEnd = chunk.usage?.completion_tokens;
    }
    if (chunk.usage && this.#chunks > 0) fill(chunk.usage, this.#atEnd ?? this.#chunks);
  }
}

/** A non-streamed answer's reasoning tokens, from the length of its reasoning. */
export function countCompletionReasoning(completion: ChatCompletion): void {
  if (!completion.usage) return;
  let bytes = 0;
  for (const { message } of completion.choices)
    if (message.reasoning_content) bytes += Buffer.byteLength(message.reasoning_content);
  if (bytes > 0) fill(completion.usage, Math.ceil(bytes / BYTES_PER_TOKEN));
}

/** Sets the count on a usage that has none from the upstream, within its completion tokens. */
function fill(usage: ChatUsage, tokens: number): void {
  if (usage.completion_tokens_details?.reasoning_tokens !== undefined) return;
  usage.completion_tokens_details = { reasoning_tokens: Math.min(tokens, usage.completion_tokens) };
}
