// The upstream's usage, checked where its chunks enter the chain, so that every plugin (rate limits,
// prompt cache, meter) sees sane figures. A count that is not a whole number from 0 up to the model's
// context, or output tokens beyond what the produced text can account for, is replaced by the gateway's
// own count (prompt: the input estimate; output: the produced UTF-8 bytes / 3, as the meter estimates)
// and logged at warn. Only the fields an upstream may report are kept: `web_search_requests` and
// `cache_creation` are the gateway's to set, never the upstream's. Where the upstream's prompt cache is
// shared between organizations, its `cached_tokens` are 0: plain input, not a read (cache-isolation.ts).
import { estimateInputTokens } from '../../limits/estimate.js';
import type { ChatChunk, ChatCompletion, ChatRequest, ChatUsage } from '../../core/canonical.js';
import { BYTES_PER_TOKEN, chunkBytes, completionBytes } from '../stream/usage-watch.js';
import type { UpstreamErrorLog } from '../../core/upstream-errors.js';
/** Tokens an answer may hold that produce no text: end of turn, thinking markers, a chat template's markup. */
const SILENT_TOKENS = 32;
/** Markup tokens around one tool call that its streamed name and arguments do not show (`<tool_call>`, `{"name": `, …). */
const SILENT_TOKENS_PER_TOOL_CALL = 32;

/** Usage as an upstream sent it: anything, until checked. */
interface ReportedUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
}

export class UsageCheck {
  readonly #request: ChatRequest;
  readonly #maxContextTokens: number;
  readonly #log: UpstreamErrorLog;
  /** Whether `cached_tokens` can only be the caller's own (the upstream's cache isolated per organization, cache-isolation.ts). */
  readonly #trustCachedTokens: boolean;
  /** Every token produces at least one byte, except the silent ones: the bound on output tokens. */
  #producedBytes = 0;
  #toolCalls = 0;
  #warned = false;

  constructor(request: ChatRequest, maxContextTokens: number, log: UpstreamErrorLog, trustCachedTokens = true) {
    this.#request = request;
    this.#maxContextTokens = maxContextTokens;
    this.#log = log;
    this.#trustCachedTokens = trustCachedTokens;
  }

  /** Counts what the chunk produced, then replaces its usage, if any, with the checked figures. */
  see(chunk: ChatChunk): void {
    this.#producedBytes += chunkBytes(chunk);
    for (const choice of chunk.choices) {
      // A call's first fragment carries its id (and name); later ones only add arguments.
      for (const call of choice.delta.tool_calls ?? []) if (call.id !== undefined) this.#toolCalls++;
    }
    if (chunk.usage) chunk.usage = this.#checked(chunk.usage);
  }

  /** The same for a non-streamed answer, whole. */
  seeCompletion(completion: ChatCompletion): void {
    this.#producedBytes += completionBytes(completion);
    for (const choice of completion.choices) this.#toolCalls += choice.message.tool_calls?.length ?? 0;
    if (completion.usage) completion.usage = this.#checked(completion.usage);
  }

  #checked(usage: unknown): ChatUsage {
    const reported = (typeof usage === 'object' && usage !== null ? usage : {}) as ReportedUsage;
    const replaced: string[] = [];
    let prompt = reported.prompt_tokens;
    if (!isCount(prompt, this.#maxContextTokens)) {
      replaced.push('prompt_tokens');
      prompt = estimateInputTokens(this.#request);
    }
    let completion = reported.completion_tokens;
    if (!isCount(completion, this.#maxContextTokens) || completion > this.#outputBound()) {
      replaced.push('completion_tokens');
      completion = Math.ceil(this.#producedBytes / BYTES_PER_TOKEN);
    }
    const promptTokens = prompt as number;
    const completionTokens = completion as number;
    const checked: ChatUsage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const cached = reported.prompt_tokens_details?.cached_tokens;
    if (cached !== undefined) {
      // The gateway has no count of the upstream's cache: none read is the safe figure (full input price).
      // A cache shared between organizations may have read another's prefix: not a read of this caller's.
      if (!this.#trustCachedTokens) checked.prompt_tokens_details = { cached_tokens: 0 };
      else if (isCount(cached, promptTokens)) checked.prompt_tokens_details = { cached_tokens: cached };
      else {
        replaced.push('cached_tokens');
        checked.prompt_tokens_details = { cached_tokens: 0 };
      }
    }
    // Reasoning tokens are part of the completion's: a figure beyond it is dropped (the gateway counts its own).
    const reasoning = reported.completion_tokens_details?.reasoning_tokens;
    if (isCount(reasoning, completionTokens)) checked.completion_tokens_details = { reasoning_tokens: reasoning };
    if (replaced.length > 0) this.#warn(replaced, reported, checked);
    return checked;
  }

  /** The most output tokens the text produced so far can account for (a matched stop string is counted but not shown). */
  #outputBound(): number {
    const stop = this.#request.stop;
    const stops = stop === undefined ? [] : typeof stop === 'string' ? [stop] : stop;
    const longestStop = stops.reduce(
      (longest, text) => Math.max(longest, typeof text === 'string' ? Buffer.byteLength(text) : 0),
      0,
    );
    return this.#producedBytes + longestStop + SILENT_TOKENS + SILENT_TOKENS_PER_TOOL_CALL * this.#toolCalls;
  }

  /** Once a request: a running usage (one on every chunk) would otherwise log the same fault many times. */
  #warn(replaced: string[], reported: ReportedUsage, checked: ChatUsage): void {
    if (this.#warned) return;
    this.#warned = true;
    const shown = (value: unknown): string => String(value).slice(0, 40);
    this.#log.warn(
      {
        replaced,
        reported: {
          prompt_tokens: shown(reported.prompt_tokens),
          completion_tokens: shown(reported.completion_tokens),
          cached_tokens: shown(reported.prompt_tokens_details?.cached_tokens),
        },
        used: { prompt_tokens: checked.prompt_tokens, completion_tokens: checked.completion_tokens },
      },
      "the model server reported usage out of bounds; the gateway's own count replaces it",
    );
  }
}

/** A token count: a whole number from 0 to `max`. */
function isCount(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= max;
}
