// One request's metering, from its hold to its settlement: an observer of the response's events
// (proxy/stream/observe.ts). The settlement is written exactly once:
// - the upstream's final usage arrived (the `choices: []` usage chunk of a stream, or a non-streamed
//   call's completion): settled with that usage, committed BEFORE the event goes on, so no client can
//   have the end of a response whose ledger row is not yet on disk;
// - the events ended without it, failed, or the client went away: settled at their end, before the
//   reader sees it, with the last usage seen (the upstream's running usage, which the terminal asks for
//   wherever the server has it), else an estimate (the input estimate and the produced output at 3 bytes
//   a token); at zero cost when the upstream failed before any output, or never answered.
// A client that leaves is metered by one rule in every dialect: the row's status is what the client
// got (the response head's status if it went out, else 499), the cost what the upstream did (the
// prompt once it accepted the request, plus the output produced; nothing if it had not answered yet).
// A non-streamed answer is still whole in the gateway when its client leaves: the upstream did what its
// last running usage says (the terminal reads the answer as a stream where the server reports one), and
// nothing that the gateway knows of without it.
import { asGatewayError } from '../../core/errors.js';
import type { ChatUsage, ResponseEvent } from '../../core/canonical.js';
import type { Exchange } from '../../core/exchange.js';
import type { EventObserver, EventsEnd } from '../../proxy/stream/observe.js';
import { usageOf, type UsageWatch } from '../../proxy/stream/usage-watch.js';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import { storeSpan, type DbSystem } from '../store-span.js';
import { orStoreUnavailable } from '../store-unavailable.js';
import type { Hold, Ledger } from './ledger.js';
import { NO_USAGE, type BilledUsage, type Pricer } from './price.js';
import { billedFromEstimate, billedFromUsage } from './usage.js';

/** The status recorded for a client that went away before any response header (nginx's "client closed request"). */
export const CLIENT_CLOSED = 499;

export interface MeterDeps {
  ledger: Ledger;
  pricer: Pricer;
  /** The store's kind, for the settlement's span. */
  dbSystem: DbSystem;
  /** Counts the micro-credits charged, once each settlement is committed. */
  metrics: GatewayMetrics | undefined;
  /** Called once the request's row is settled (or could not be). */
  done(hold: Hold): void;
}

export class RequestMeter implements EventObserver {
  readonly #exchange: Exchange;
  readonly #hold: Hold;
  readonly #deps: MeterDeps;
  /** A non-streamed answer's usage is final wherever it comes (a search loop's comes once, at its end). */
  readonly #streamed: boolean;
  /** An event came from the inner chain: the upstream produced output. */
  #answered = false;
  #settled = false;

  constructor(exchange: Exchange, hold: Hold, deps: MeterDeps) {
    this.#exchange = exchange;
    this.#hold = hold;
    this.#deps = deps;
    this.#streamed = exchange.request?.stream === true;
  }

  /** The upstream call failed before it answered (or the client left first): nothing was produced. */
  async failed(error: unknown): Promise<void> {
    await this.#settleQuietly(NO_USAGE, this.#statusOf(error));
  }

  /** The final usage is settled, and committed, before its event goes on. */
  onEvent(event: ResponseEvent): Promise<void> | undefined {
    this.#answered = true;
    const usage = usageOf(event);
    if (usage === undefined) return undefined;
    if (this.#settled) {
      this.#exchange.log.warn({ usage }, 'meter: usage after the final usage chunk, not billed');
      return undefined;
    }
    // Final: a completion's, any in a non-streamed answer, or the `choices: []` chunk that ends a stream.
    const final = event.type !== 'chunk' || !this.#streamed || event.chunk.choices.length === 0;
    return final ? this.#settle(this.#billed(usage), 200) : undefined;
  }

  /** The events are over without a final usage: settled with what they showed. */
  async onEnd(end: EventsEnd, watch: UsageWatch): Promise<void> {
    if (this.#settled) return;
    const clientGone = this.#exchange.signal.aborted;
    if (end.kind !== 'failed' && !clientGone) {
      // The events ended without a final usage chunk: this is still the response's end, so a failed write fails it.
      await this.#settle(this.#produced(watch), 200);
      return;
    }
    const failure = end.kind === 'failed' ? end.error : undefined;
    const status = this.#exchange.res.headersSent ? this.#exchange.res.statusCode : this.#statusOf(failure);
    // The upstream accepted the request (it answered before the events were returned): a client that
    // left pays the prompt and what was produced; an upstream failure before any output costs nothing.
    const usage = clientGone ? this.#producedBeforeLeaving(watch) : this.#answered ? this.#produced(watch) : NO_USAGE;
    await this.#settleQuietly(usage, status);
  }

  /** The last usage seen (none was final), else the estimate: the input's, and the output produced. */
  #produced(watch: UsageWatch): BilledUsage {
    if (watch.usage !== undefined) return this.#billed(watch.usage);
    return billedFromEstimate(
      this.#exchange.inputEstimate,
      watch.outputTokens(),
      this.#exchange.locals.searches?.executed ?? 0,
    );
  }

  /**
   * What a client that left pays: what the events showed, or for a non-streamed answer none of which was handed
   * on yet, the upstream's last running usage (exchange.locals.runningUsage, set by the terminal), else nothing.
   */
  #producedBeforeLeaving(watch: UsageWatch): BilledUsage {
    if (this.#streamed || this.#answered) return this.#produced(watch);
    const running = this.#exchange.locals.runningUsage;
    return running === undefined ? NO_USAGE : this.#billed(running);
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
      const settlement = { usage, costMicros, status, durationMs };
      const ledger = this.#deps.ledger;
      await orStoreUnavailable(
        exchange.trace
          ? storeSpan(exchange.trace, 'meter settlement', this.#deps.dbSystem, () =>
              ledger.settle(this.#hold, settlement),
            )
          : ledger.settle(this.#hold, settlement),
      );
    } finally {
      this.#deps.done(this.#hold);
    }
    const metrics = this.#deps.metrics;
    metrics?.creditsCharged.inc(metrics.orgLabels(this.#hold.orgId), costMicros);
    exchange.logFields.input_tokens = usage.input + usage.cacheRead + usage.cacheWrite5m + usage.cacheWrite1h;
    exchange.logFields.output_tokens = usage.output;
    if (usage.cacheRead > 0) exchange.logFields.cache_read_tokens = usage.cacheRead;
    if (usage.cacheWrite5m + usage.cacheWrite1h > 0)
      exchange.logFields.cache_write_tokens = usage.cacheWrite5m + usage.cacheWrite1h;
    if (usage.searches > 0) exchange.logFields.searches = usage.searches;
    exchange.logFields.cost_micros = costMicros;
  }

  /** Settles on a path that already failed: a failed write is logged, the original failure stands. */
  async #settleQuietly(usage: BilledUsage, status: number): Promise<void> {
    try {
      await this.#settle(usage, status);
    } catch (error) {
      this.#exchange.log.error(
        { err: error, hold: this.#hold.id },
        'meter: the settlement could not be written; the hold stays until the orphan sweep',
      );
    }
  }
}
