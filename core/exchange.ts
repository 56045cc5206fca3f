// One client request as the plugins and the upstream call see it, whatever door it came in by: the contract.
// The exchange runner (proxy/exchange/) makes the live one.
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { RequestTrace } from '../telemetry/request-trace.js';
import type { ChatRequest } from './canonical.js';
import type { LimitSnapshot } from './limit-snapshot.js';
import type { Route } from './route.js';
import type { ServedTier } from './service-tier.js';

/**
 * Per-request variables that plugins share. A plugin that sets one declares it here by
 * declaration merging (`declare module '…/core/exchange.js' { interface ExchangeLocals { org: Org } }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty here on purpose: the plugins fill it by merging
export interface ExchangeLocals {}

/**
 * What the chain sees of the answer: whether its head went out (after that an error can only be an event
 * in the stream), and its status. An HTTP response, or one response on a WebSocket (proxy/socket/).
 */
export interface ExchangeReply {
  readonly headersSent: boolean;
  readonly statusCode: number;
}

/**
 * What every door tells of a request before its body: its method, path and headers. An HTTP request is
 * one (IncomingMessage has these); a WebSocket's messages share their upgrade request's; a door with no
 * HTTP request of its own (a batch line) makes one.
 */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/**
 * A request that is one line of a batch (issue #29): no key came with it, it runs as the key that made the
 * batch, at the batch price, its ledger row naming the batch.
 */
export interface BatchLine {
  readonly batchId: string;
  /** The key that made the batch: the line runs as it (revoked since: the line fails 401). */
  readonly keyId: string;
  /** An earlier attempt at this line was billed (its node stopped before writing the result): this one is not. */
  readonly prepaid: boolean;
}

/** One client request and everything the gateway learns about it on the way through. */
export interface Exchange {
  readonly id: string;
  /** performance.now() at arrival. */
  readonly startedAt: number;
  /** The request's head: the HTTP request's; on a WebSocket, the upgrade request's (its headers hold the key). */
  readonly req: RequestHead;
  /** Set when the request is a line of a batch rather than a client's own. */
  readonly batchLine: BatchLine | undefined;
  readonly res: ExchangeReply;
  readonly route: Route;
  /** Aborted when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
  /** Headers every response to this request carries, error or success (plugins add theirs). */
  readonly responseHeaders: Record<string, string>;
  readonly locals: Partial<ExchangeLocals>;
  /** Fields plugins add to the request's one log line (the caller's org and key, tokens, cost). */
  readonly logFields: Record<string, string | number>;
  /** The canonical request, set once the body is decoded. */
  readonly request: ChatRequest | undefined;
  /** Whether the answer is a stream (SSE or WebSocket messages): known once the request is decoded. */
  readonly stream: boolean;
  /** The request's trace, when the node traces: spans of what it waits on go under it. */
  readonly trace: RequestTrace | undefined;
  /** The organization's limit window and balance for clients that read them in the stream; set by the rate limiter. */
  limits: LimitSnapshot | undefined;
  /**
   * The service tier the request is served at (core/service-tier.ts), set by the meter from the client's
   * `service_tier`, the operator's offer and the organization's settings; undefined: `default`, no priority.
   */
  serviceTier: ServedTier | undefined;
  /** A logger whose lines carry this request's id. */
  readonly log: Logger;
  /** The input-token estimate of the canonical request, made once (the rate limiter and the meter charge it). */
  readonly inputEstimate: number;
}
