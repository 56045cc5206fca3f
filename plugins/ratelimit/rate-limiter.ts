// The rate limiter's hooks (spec §8.1–8.3). Per organization and window, three counters against the
// organization's tier:
// - requests: every call of a generation route is one, streamed or not, valid or not, consumed in
//   onRequest before the body is read (a 400 counts: a call is a call);
// - input tokens: the request's estimate is consumed before the upstream call (429 if it does not fit,
//   and the estimate is given back), then reconciled with the upstream's prompt_tokens;
// - output tokens: charged after the response with completion_tokens (never max_tokens), also when the
//   client went away or the stream broke. They cannot stop the request that crosses the limit: that one
//   completes, the organization is notified, and every later request of the window gets 429.
// count_tokens and /v1/models consume nothing but carry the headers (a read); the probes (/health, /ready)
// never reach a plugin. Beside the spec's headers, each client's own limit signal from the same counts:
// Claude Code's on the messages dialect (unified-ratelimit-headers.ts), Codex's on responses
// (codex-rate-limit-headers.ts).
import type { LimitNotifier } from '../../notify/notifier.js';
import type { Tier } from '../../limits/tiers.js';
import type { GatewayError } from '../../core/errors.js';
import type { Exchange } from '../../core/exchange.js';
import { observe } from '../../proxy/stream/observe.js';
import type { EventStream, Next, Plugin } from '../../core/plugin.js';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import { writeRetryAfter } from '../../core/retry-after.js';
import type { RateLimitHeaders } from './headers.js';
import { CapWindows, type RateCapScope } from './cap-windows.js';
import { inputTooLargeError, limitError } from './limit-error.js';
import type { TierCache } from './tier-cache.js';
import { codexLimitSnapshot, writeCodexRateLimitHeaders } from './codex-rate-limit-headers.js';
import { writeUnifiedRateLimitHeaders } from './unified-ratelimit-headers.js';
import type { CounterKind, Counts, RateWindow } from './window.js';
import { windowUse } from './window-use.js';

/** The caller's tier and counters, as the last operation left them. */
export interface RateLimitState {
  orgId: string;
  /**
   * The windows counted: the organization's, or for a batch line its batch pool (issue #29), a second set of
   * windows at the same tier, so batch work neither waits on live traffic's limits nor eats into them.
   */
  windowId: string;
  tier: Tier;
  counts: Counts;
  /** The caller's key and member scopes that have rate caps (cap-windows.ts). */
  capScopes: RateCapScope[];
}

declare module '../../core/exchange.js' {
  interface ExchangeLocals {
    /** The caller's rate-limit tier and counters: set by the ratelimit plugin. */
    rateLimit: RateLimitState;
  }
}

export interface RateLimiterParts {
  window: RateWindow;
  tiers: TierCache;
  headers: RateLimitHeaders;
  notifier: LimitNotifier;
  metrics: GatewayMetrics | undefined;
  /** The clock of the windows' resets (the plugin context's). */
  now: () => number;
}

/** The `limit` label of `gateway_rate_limit_rejections_total` for each counter. */
const LIMIT_LABELS: Readonly<Record<CounterKind, string>> = {
  requests: 'requests',
  input: 'input_tokens',
  output: 'output_tokens',
};

declare module '../../core/capabilities.js' {
  interface PluginCapabilities {
    /** An organization's tier and what its current windows have used, counting nothing (the console shows them). */
    'ratelimit.windowUse': (orgId: string) => Promise<{ tier: Tier; counts: Counts }>;
  }
}

export class RateLimiter implements Plugin {
  readonly name = 'ratelimit';
  readonly capabilities = { 'ratelimit.windowUse': (orgId: string) => this.windowUse(orgId) };
  readonly #window: RateWindow;
  readonly #tiers: TierCache;
  readonly #headers: RateLimitHeaders;
  readonly #notifier: LimitNotifier;
  readonly #metrics: GatewayMetrics | undefined;
  readonly #now: () => number;
  readonly #caps: CapWindows;

  constructor(parts: RateLimiterParts) {
    this.#window = parts.window;
    this.#tiers = parts.tiers;
    this.#headers = parts.headers;
    this.#notifier = parts.notifier;
    this.#metrics = parts.metrics;
    this.#now = parts.now;
    this.#caps = new CapWindows(parts.window, parts.now, parts.metrics);
  }

  /**
   * An organization's tier and what its current windows have used, without counting anything (the
   * customers' console shows them). Like any read, it starts the windows if none is running.
   */
  async windowUse(orgId: string): Promise<{ tier: Tier; counts: Counts }> {
    const [tier, counts] = await Promise.all([this.#tiers.tierOf(orgId), this.#window.open(orgId, 0)]);
    return { tier, counts };
  }

  async onRequest(exchange: Exchange): Promise<void> {
    const caller = exchange.locals.caller;
    const kind = exchange.route.kind;
    // Without auth before it in the chain there is no organization to count for.
    if (caller === undefined) return;
    const orgId = caller.orgId;
    const windowId = exchange.batchLine === undefined ? orgId : `batch:${orgId}`;
    const generating = kind === 'generate';
    const requests = generating ? 1 : 0;
    // The three counters in one step (one round trip with Redis); the tier is nearly always known, and
    // when it is not, its lookup and the counters go together.
    let tier = this.#tiers.known(orgId);
    let counts: Counts;
    if (tier !== undefined) counts = await this.#window.open(windowId, requests, exchange.log);
    else
      [tier, counts] = await Promise.all([
        this.#tiers.tierOf(orgId),
        this.#window.open(windowId, requests, exchange.log),
      ]);
    const state: RateLimitState = { orgId, windowId, tier, counts, capScopes: [] };
    exchange.locals.rateLimit = state;
    this.#headers.write(exchange.responseHeaders, tier, counts);
    this.#writeClientSignal(exchange, state, false);
    if (!generating) return;
    if (counts.requests.used > tier.requestsPerMinute) throw this.#reject(exchange, state, 'requests');
    if (counts.output.used >= tier.outputTokensPerMinute)
      throw this.#reject(exchange, state, 'output', `${counts.output.used} used in this window`);
    state.capScopes = this.#caps.scopesOf(orgId, caller.keyId, caller.keyName, caller.caps);
    if (state.capScopes.length > 0) await this.#caps.open(state.capScopes, exchange.responseHeaders, exchange.log);
  }

  async handle(exchange: Exchange, next: Next): Promise<EventStream> {
    const state = exchange.locals.rateLimit;
    const request = exchange.request;
    if (state === undefined || request === undefined) return next();
    const { orgId, windowId, tier } = state;
    const limit = tier.inputTokensPerMinute;
    const estimate = exchange.inputEstimate;
    // Refused, the estimate goes back in the same step, so that a refused request takes nothing from the window.
    const { admitted, input } = await this.#window.chargeInput(windowId, estimate, limit, exchange.log);
    state.counts.input = input;
    this.#headers.writeCounter(exchange.responseHeaders, tier, 'input', input);
    this.#writeClientSignal(exchange, state, !admitted);
    if (!admitted) {
      if (estimate > limit) {
        writeRetryAfter(exchange.responseHeaders, input.resetAt - this.#now());
        exchange.responseHeaders['x-should-retry'] = 'false';
        this.#counted(orgId, 'input');
        throw inputTooLargeError(tier, this.#window.windowMs, estimate);
      }
      const left = Math.max(0, limit - input.used);
      throw this.#reject(exchange, state, 'input', `this request needs about ${estimate} and ${left} are left`);
    }
    if (state.capScopes.length > 0)
      await this.#caps.chargeInput(state.capScopes, estimate, exchange.responseHeaders, exchange.log, async () => {
        await this.#window.settle(windowId, -estimate, undefined, exchange.log);
      });
    let events: EventStream;
    try {
      events = await next();
    } catch (error) {
      // No answer came (upstream down or refusing, or a later plugin said no): nothing was processed.
      await this.#settle(exchange, state, { estimate, windowEnd: input.resetAt, prompt: 0, output: 0 });
      throw error;
    }
    // At the end, however it came (the client gone, the stream broken too), and before the reader sees
    // it: a non-streamed answer's headers, written after, show the settled counts. The prompt tokens
    // are the upstream's, when it reported them (else the estimate stands).
    return observe(events, {
      onEnd: (_end, watch) =>
        this.#settle(exchange, state, {
          estimate,
          windowEnd: input.resetAt,
          prompt: watch.usage?.prompt_tokens,
          output: watch.outputTokens(),
        }),
    });
  }

  /**
   * Charges what the call used, in one step: the input difference to the estimate (penalty or reward)
   * in the window the estimate went to, if that window is still open, and the output tokens. Never
   * throws: the response is already on its way.
   */
  async #settle(
    exchange: Exchange,
    state: RateLimitState,
    used: { estimate: number; windowEnd: number; prompt: number | undefined; output: number },
  ): Promise<void> {
    const difference = used.prompt === undefined ? 0 : used.prompt - used.estimate;
    if (state.capScopes.length > 0) await this.#caps.settle(state.capScopes, difference, used.output, exchange.log);
    const inputChange = difference !== 0 && this.#now() < used.windowEnd ? difference : undefined;
    const outputChange = used.output > 0 ? used.output : undefined;
    if (inputChange === undefined && outputChange === undefined) return;
    const { orgId, windowId, tier } = state;
    try {
      const settled = await this.#window.settle(windowId, inputChange, outputChange, exchange.log);
      const headers = exchange.res.headersSent ? undefined : exchange.responseHeaders;
      if (settled.input !== undefined) {
        state.counts.input = settled.input;
        if (headers !== undefined) this.#headers.writeCounter(headers, tier, 'input', settled.input);
      }
      if (settled.output !== undefined) {
        const counted = settled.output;
        state.counts.output = counted;
        if (headers !== undefined) this.#headers.writeCounter(headers, tier, 'output', counted);
        const limit = tier.outputTokensPerMinute;
        // Exactly one request crosses the limit in a window: the counter only grows, atomically.
        // (A batch pool's limit mails no one: its lines wait for the next window.)
        if (windowId === orgId && counted.used >= limit && counted.used - used.output < limit) {
          this.#notifier.outputTokensBlocked({ orgId, limit, used: counted.used, resetAt: new Date(counted.resetAt) });
        }
      }
      if (headers !== undefined) this.#writeClientSignal(exchange, state, false);
    } catch (error) {
      exchange.log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'ratelimit: could not charge the usage',
      );
    }
  }

  /** The 429 for a counter: retry-after until its window resets, and the message naming the limit. */
  #reject(exchange: Exchange, state: RateLimitState, kind: CounterKind, detail?: string): GatewayError {
    const retryMs = state.counts[kind].resetAt - this.#now();
    writeRetryAfter(exchange.responseHeaders, retryMs);
    this.#writeClientSignal(exchange, state, true);
    this.#counted(state.orgId, kind);
    return limitError({
      kind,
      tier: state.tier,
      windowMs: this.#window.windowMs,
      retryMs,
      ...(detail === undefined ? {} : { detail }),
    });
  }

  /**
   * The caller's client's own limit signal, from the counts as they are now: Claude Code's headers on
   * the messages dialect, Codex's on responses; `rejected` for the organization's 429.
   */
  #writeClientSignal(exchange: Exchange, state: RateLimitState, rejected: boolean): void {
    const dialect = exchange.route.dialect?.name;
    if (dialect === 'messages')
      writeUnifiedRateLimitHeaders(exchange.responseHeaders, windowUse(state.tier, state.counts), rejected);
    else if (dialect === 'responses') {
      exchange.limits = codexLimitSnapshot(
        windowUse(state.tier, state.counts),
        this.#window.windowMs,
        rejected,
        this.#tiers.balanceOf(state.orgId),
      );
      writeCodexRateLimitHeaders(exchange.responseHeaders, exchange.limits);
    }
  }

  /** A 429 for `kind`'s limit, in the metrics. */
  #counted(orgId: string, kind: CounterKind): void {
    this.#metrics?.rateLimitRejections.inc({ limit: LIMIT_LABELS[kind], ...this.#metrics.orgLabels(orgId) });
  }
}
