// One request's metering, from its hold to its settlement. The settlement is written exactly once:
// - the upstream's final usage arrived (the `choices: []` usage chunk of a stream, or the one chunk of
//   a body): settled with that usage, committed BEFORE the chunk goes on, so no client can have the end
//   of a response whose ledger row is not yet on disk;
// - the events ended without it, failed, or the client went away: settled in `finally`, which runs
//   before the consumer sees the end, with the last usage seen (vLLM's running usage), else an estimate
//   (the input estimate and the produced text at 3 bytes a token); at zero cost when the upstream
//   failed before any output, or never answered.
// A client that leaves is metered by one rule in every dialect: the row's status is what the client
// got (the response head's status if it went out, else 499), the cost what the upstream did (the
// prompt once it accepted the request, plus the output produced; nothing if it had not answered yet).
import { asGatewayError } from '../../proxy/errors.js';
import type { CanonicalEvent, ChatChunk, ChatUsage } from '../../proxy/canonical.js';
import type { Exchange } from '../../proxy/exchange.js';
import type { EventStream } from '../../proxy/plugin.js';
import type { Hold, Ledger } from './ledger.js';
import { NO_USAGE, type BilledUsage, type Pricer } from './price.js';
import { billedFromEstimate, billedFromUsage } from './usage.js';

/** The status recorded for a client that went away before any response header (nginx's "client closed request"). */
export const CLIENT_CLOSED = 499;

export interface MeterDeps {
  ledger: Ledger;
  pricer: Pricer;
  /** Called once the request's row is settled (or could not be). */
  done(hold: Hold): void;
}

export class RequestMeter {
  readonly #exchange: Exchange;
  readonly #hold: Hold;
  readonly #inputEstimate: number;
  readonly #deps: MeterDeps;
  /** A non-streamed answer is one chunk: its usage is final whatever its choices. */
  readonly #streamed: boolean;
  #lastUsage: ChatUsage | undefined;
  #producedBytes = 0;
  /** Events seen from the inner chain: any means the upstream produced output. */
  #events = 0;
  #settled = false;

  constructor(exchange: Exchange, hold: Hold, inputEstimate: number, deps: MeterDeps) {
    this.#exchange = exchange;
    this.#hold = hold;
    this.#inputEstimate = inputEstimate;
    this.#deps = deps;
    this.#streamed = exchange.request?.stream === true;
  }

  /** The upstream call failed before it answered (or the client left first): nothing was produced. */
  async failed(error: unknown): Promise<void> {
    await this.#settleQuietly(NO_USAGE, this.#statusOf(error));
  }

  /** The events, passed on unchanged, with the settlement committed before the end can reach the client. */
  async *meter(events: EventStream): AsyncGenerator<CanonicalEvent> {
    let failure: unknown;
    let failed = false;
    try {
      for await (const event of events) {
        this.#events++;
        if (event.type === 'chunk') {
          const chunk = event.chunk;
          if (chunk.usage) {
            if (this.#settled) this.#exchange.log.warn({ usage: chunk.usage }, 'meter: usage after the final usage chunk, not billed');
            else {
              this.#lastUsage = chunk.usage;
              if (!this.#streamed || chunk.choices.length === 0) await this.#settle(this.#billed(chunk.usage), 200);
            }
          }
          if (!this.#settled) this.#producedBytes += producedBytes(chunk);
        }
        yield event;
      }
    } catch (error) {
      failure = error;
      failed = true;
      throw error;
    } finally {
      if (!this.#settled) {
        const clientGone = this.#exchange.signal.aborted;
        if (!failed && !clientGone) {
          // The events ended without a final usage chunk: this is still the response's end, so a failed write fails it.
          await this.#settle(this.#produced(), 200);
        } else {
          const status = this.#exchange.res.headersSent ? this.#exchange.res.statusCode : this.#statusOf(failure);
          // The upstream accepted the request (it answered before meter() ran): a client that left pays
          // the prompt and what was produced; an upstream failure before any output costs nothing.
          const usage = !clientGone && this.#events === 0 ? NO_USAGE : this.#produced();
          await this.#settleQuietly(usage, status);
        }
      }
    }
  }

  #produced(): BilledUsage {
    if (this.#lastUsage !== undefined) return this.#billed(this.#lastUsage);
    return billedFromEstimate(this.#inputEstimate, this.#producedBytes, this.#exchange.locals.searches?.executed ?? 0);
  }

  /** Searches are counted by the search plugin in the exchange (else in the usage it emits), never both. */
  #billed(usage: ChatUsage): BilledUsage {
    return billedFromUsage(usage, this.#exchange.locals.searches?.executed ?? usage.web_search_requests ?? 0);
  }

  #statusOf(error: unknown): number {
    const res = this.#exchange.res;
    if (this.#exchange.signal.aborted) return res.headersSent ? res.statusCode : CLIENT_CLOSED;
    return asGatewayError(error).status;
  }

  async #settle(usage: BilledUsage, status: number): Promise<void> {
    this.#settled = true;
    const exchange = this.#exchange;
    const costMicros = this.#deps.pricer.cost(usage);
    const durationMs = Math.round(performance.now() - exchange.startedAt);
    try {
      await this.#deps.ledger.settle(this.#hold, { usage, costMicros, status, durationMs });
    } finally {
      this.#deps.done(this.#hold);
    }
    exchange.logFields.input_tokens = usage.input + usage.cacheRead + usage.cacheWrite5m + usage.cacheWrite1h;
    exchange.logFields.output_tokens = usage.output;
    if (usage.cacheRead > 0) exchange.logFields.cache_read_tokens = usage.cacheRead;
    if (usage.cacheWrite5m + usage.cacheWrite1h > 0) exchange.logFields.cache_write_tokens = usage.cacheWrite5m + usage.cacheWrite1h;
    if (usage.searches > 0) exchange.logFields.searches = usage.searches;
    exchange.logFields.cost_micros = costMicros;
  }

  /** Settles on a path that already failed: a failed write is logged, the original failure stands. */
  async #settleQuietly(usage: BilledUsage, status: number): Promise<void> {
    try {
      await this.#settle(usage, status);
    } catch (error) {
      this.#exchange.log.error({ err: error, hold: this.#hold.id }, 'meter: the settlement could not be written; the hold stays until the orphan sweep');
    }
  }
}

/** UTF-8 bytes of text, reasoning and tool-call arguments in a chunk: what was produced. */
function producedBytes(chunk: ChatChunk): number {
  let bytes = 0;
  for (const choice of chunk.choices) {
    const delta = choice.delta;
    if (delta.content) bytes += Buffer.byteLength(delta.content);
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) bytes += Buffer.byteLength(reasoning);
    for (const call of delta.tool_calls ?? []) {
      if (call.function?.name) bytes += Buffer.byteLength(call.function.name);
      if (call.function?.arguments) bytes += Buffer.byteLength(call.function.arguments);
    }
  }
  return bytes;
}
