import type { Logger } from 'pino';
import type { RequestTrace } from '../../telemetry/request-trace.js';
import { estimateInputTokens } from '../../limits/estimate.js';
import type { AnswerWatch } from '../stream/answer-watch.js';
import type { LimitSnapshot } from '../../core/limit-snapshot.js';
import { recognizedClient } from '../routing/wire-negotiation.js';
import type { ChatRequest } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { WireProfile } from '../../core/dialect.js';
import type { BatchLine, Exchange, ExchangeLocals, ExchangeReply, RequestHead } from '../../core/exchange.js';
import type { Route } from '../../core/route.js';
import type { ServedTier } from '../../core/service-tier.js';
import { checkThinkingReplay } from './thinking-replay.js';
import type { ThinkingSigner } from '../../core/thinking-signer.js';

/** The exchange under way (the contract: core/exchange.ts), made by the runner for each request. */
export class LiveExchange implements Exchange {
  readonly id: string;
  readonly startedAt = performance.now();
  /** Unix seconds at arrival: the `created` of every object the response carries. */
  readonly created = Math.floor(Date.now() / 1000);
  /** The HTTP request; on a WebSocket, the upgrade request (its headers hold the key). */
  readonly req: RequestHead;
  readonly batchLine: BatchLine | undefined;
  readonly res: ExchangeReply;
  readonly route: Route;
  /** Aborted when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
  /** Headers every response to this request carries, error or success (plugins add theirs). */
  readonly responseHeaders: Record<string, string>;
  readonly locals: Partial<ExchangeLocals> = {};
  /** Fields plugins add to the request's one log line (the caller's org and key, tokens, cost). */
  readonly logFields: Record<string, string | number> = {};
  wire: WireProfile;
  /** Signs the thinking the answer carries (the encoders read it). */
  readonly thinkingSigner: ThinkingSigner;
  /** The canonical request, set once the body is decoded. */
  request: ChatRequest | undefined = undefined;
  /** Whether the answer is a stream (SSE or WebSocket messages): known once the request is decoded. */
  stream = false;
  /** What the answer carried, for the metrics and the trace; set when the node records either. */
  answer: AnswerWatch | undefined = undefined;
  /** The request's trace, when the node traces (proxy/exchange/trace.ts): spans of what it waits on go under it. */
  trace: RequestTrace | undefined = undefined;
  /** The organization's limit window and balance for clients that read them in the stream; set by the rate limiter. */
  limits: LimitSnapshot | undefined = undefined;
  /** The service tier the request is served at; set by the meter. */
  serviceTier: ServedTier | undefined = undefined;

  readonly #rootLog: Logger;
  #log: Logger | undefined;
  #inputEstimate: number | undefined;

  constructor(init: {
    id: string;
    req: RequestHead;
    batchLine?: BatchLine | undefined;
    res: ExchangeReply;
    route: Route;
    rootLog: Logger;
    signal: AbortSignal;
    wire: WireProfile;
    thinkingSigner: ThinkingSigner;
  }) {
    this.id = init.id;
    this.req = init.req;
    this.batchLine = init.batchLine;
    this.res = init.res;
    this.route = init.route;
    this.#rootLog = init.rootLog;
    this.signal = init.signal;
    this.wire = init.wire;
    this.thinkingSigner = init.thinkingSigner;
    this.responseHeaders = { 'x-request-id': init.id };
  }

  /**
   * The decoded request becomes this exchange's, as every entry (a POST, a count, a WebSocket message) takes it:
   * the thinking it passes back verifies first (a 400 before any plugin runs), and the log line gets the model
   * id the client named (the model's, or one of its aliases: the answer names the model's own id).
   */
  accept(request: ChatRequest): void {
    checkThinkingReplay(request, this.thinkingSigner);
    this.request = request;
    this.logFields.model = request.model;
  }

  /** The client as it names itself in its headers (proxy/routing/wire-negotiation.ts), if it is one the gateway knows. */
  get client(): string | undefined {
    return recognizedClient(this.req.headers)?.client;
  }

  /** A logger whose lines carry this request's id (made on first use: most requests log one line only). */
  get log(): Logger {
    this.#log ??= this.#rootLog.child({ requestId: this.id });
    return this.#log;
  }

  /**
   * The input-token estimate of the canonical request (limits/estimate.ts), made once, when first asked:
   * the rate limiter and the meter both charge it before the call. In the default chain both come
   * before the search plugin, the one plugin that changes the request (it adds its tool and note), so
   * it is the estimate of the request as the client's dialect decoded it.
   */
  get inputEstimate(): number {
    if (this.#inputEstimate === undefined) {
      if (this.request === undefined) throw new GatewayError('GW_ERR_INTERNAL', 'The request was not decoded.');
      this.#inputEstimate = estimateInputTokens(this.request);
    }
    return this.#inputEstimate;
  }
}
