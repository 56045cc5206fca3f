// The one lifecycle of a request, whatever door it came in by (docs/architecture.md, "One exchange"): an
// HTTP request (proxy/http-door.ts), a request message on a WebSocket (proxy/socket/), and next a batch line.
// The door says how the body arrives and how the answer leaves; everything between is here, once.
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import type { GatewayTracing } from '../../telemetry/tracing.js';
import { CompletionAccumulator } from '../stream/accumulate.js';
import { AnswerWatch } from '../stream/answer-watch.js';
import { countClientWaits } from '../stream/client-wait.js';
import type { ChatCompletion, ChatRequest, JsonObject } from '../../core/canonical.js';
import type { Chain } from './chain.js';
import type { Dialect, StreamEncoder, WireProfile } from '../../core/dialect.js';
import { asGatewayError, GatewayError } from '../../core/errors.js';
import { LiveExchange } from './exchange.js';
import type { BatchLine, Exchange, ExchangeReply, RequestHead } from '../../core/exchange.js';
import { traceExchange } from './trace.js';
import type { EventStream } from '../../core/event-stream.js';
import { apiFamilyOf, type ModelCatalogue } from '../routing/models.js';
import { printable } from '../../core/printable.js';
import type { Readiness } from '../node/readiness.js';
import { endExchange } from './request-end.js';
import type { Route } from '../routing/router.js';
import type { ThinkingSigner } from '../../core/thinking-signer.js';
import { refuseUnhandledSearch } from './unhandled-search.js';

/** What every exchange of a node shares, whatever its door. */
export interface ExchangeRuntime {
  readonly chain: Chain;
  readonly log: Logger;
  /** The node's Prometheus metrics, when they are on (`metrics.port`). */
  readonly metrics: GatewayMetrics | undefined;
  /** The node's tracer, when it traces (`tracing.otlp_url`). */
  readonly tracing: GatewayTracing | undefined;
  /** Signs thinking on the way out and verifies it when a client passes it back. */
  readonly thinkingSigner: ThinkingSigner;
  /** What GET /v1/models and GET /v1/models/{id} answer. */
  readonly models: ModelCatalogue;
  /** GET /ready's answer. */
  readonly readiness: Readiness;
  /** Counts the prompt tokens the upstream will see for a canonical request (count_tokens). */
  readonly countTokens: ((request: ChatRequest, signal: AbortSignal) => Promise<number>) | undefined;
  /** GET /v1/me/caps's answer for the exchange's caller (a plugin's `meter.callerCaps`), if any plugin gives one. */
  readonly callerCaps: ((exchange: Exchange) => Promise<JsonObject>) | undefined;
  /** What answers the `resource` routes (the batch APIs), when they are served. */
  readonly resources?: ResourceApi | undefined;
}

/** An API served beside the generations (the batch APIs): it answers a `resource` route through the door. */
export interface ResourceApi {
  /** Answers the exchange (its caller known: the plugins' request hooks ran); `id` is the path's `{id}`, if any. */
  serve(exchange: LiveExchange, door: Door, id: string): Promise<void>;
}

/** A request's body as its door delivers it, and whether anything is to be generated (a WebSocket warm-up is not). */
export interface DeliveredBody {
  readonly body: unknown;
  readonly generate: boolean;
}

/**
 * A door: how one request's body arrives and how its answer leaves. The HTTP door reads the body and
 * writes a response; the WebSocket door takes a message and sends messages; a batch door will read a
 * line and collect the answer.
 */
export interface Door {
  /** Whether the answer's head went out (after that an error can only be an event in the stream), and its status. */
  readonly reply: ExchangeReply;
  /** Every answer of this door is a stream, whatever the body asks (a WebSocket's responses). */
  readonly alwaysStreams: boolean;
  /** The request's body (read, or already there). */
  body(exchange: LiveExchange): Promise<DeliveredBody>;
  /** The request's body unread, as it arrives (a file's upload); a door without one throws. */
  bodyStream(exchange: LiveExchange): Readable;
  /** A whole JSON answer. */
  sendJson(status: number, headers: Record<string, string>, body: JsonObject): void;
  /** An answer of bytes (a file's content), streamed with backpressure; settles once sent (or the client went away). */
  sendBytes(status: number, headers: Record<string, string>, body: Readable): Promise<void>;
  /** A streamed answer: the encoder's output as this door carries it; settles once over, with the error, if any. */
  sendStream(exchange: LiveExchange, encoder: StreamEncoder, events: EventStream): Promise<GatewayError | undefined>;
  /** The whole answer to a request that generates nothing (a warm-up): its start and end with no output. */
  sendWarmUp(encoder: StreamEncoder): void;
  /** An error before the head went out, in the route's dialect. */
  sendError(exchange: LiveExchange, error: GatewayError): void;
  /** An error after the head went out: the answer ends as it can. */
  endBroken(): void;
  /** The status the request's log line and metrics get, once it is over. */
  finalStatus(aborted: boolean, failure: GatewayError | undefined): number;
  /** After the exchange ended (an unread body is discarded). */
  finish(exchange: LiveExchange): void;
}

/** One request as a door hands it over. */
export interface ExchangeEntry {
  readonly id: string;
  /** The HTTP request; on a WebSocket, the upgrade request (its headers hold the key); a batch line's made-up head. */
  readonly req: RequestHead;
  /** What a batch door tells of its line (whose it is, its batch). */
  readonly batchLine?: BatchLine;
  readonly route: Route;
  /** Aborted when the client goes away before the answer is complete. */
  readonly signal: AbortSignal;
  /** The profile negotiated from the client's name (what the log line gets if the request fails at once). */
  readonly wire: WireProfile;
  /** The profile the request's own `x-gateway-wire` header names, if the door reads one; throws a 400 for a bad one. */
  readonly wireHeader?: () => WireProfile;
  /** The id a `GET /v1/models/{id}` names. */
  readonly pathId?: string;
}

/**
 * Runs one exchange to its end: the exchange, its trace and answer watch; the plugins' request hooks;
 * the route's work (a generation through the chain, a count, the models, the probes); the answer through
 * the door; a failure mapped to the dialect's error; and the exchange's end (log line, metrics, span).
 */
export async function runExchange(runtime: ExchangeRuntime, entry: ExchangeEntry, door: Door): Promise<void> {
  const { route, signal } = entry;
  const exchange = new LiveExchange({
    id: entry.id,
    req: entry.req,
    batchLine: entry.batchLine,
    res: door.reply,
    route,
    rootLog: runtime.log,
    signal,
    wire: entry.wire,
    thinkingSigner: runtime.thinkingSigner,
  });
  // The probes answer for the node, not for a caller: no span (a load balancer's every few seconds), no plugin.
  const probe = route.kind === 'health' || route.kind === 'ready';
  if (runtime.tracing !== undefined && !probe) traceExchange(exchange, runtime.tracing);
  if (runtime.metrics !== undefined || exchange.trace !== undefined) exchange.answer = new AnswerWatch();
  exchange.stream = door.alwaysStreams;
  let failure: GatewayError | undefined;
  try {
    if (entry.wireHeader !== undefined) exchange.wire = entry.wireHeader();
    if (!probe) for (const hook of runtime.chain.onRequest) await hook(exchange);
    failure = await serve(runtime, exchange, door, entry.pathId ?? '');
  } catch (error) {
    // A client that went away needs no answer; its upstream call is already aborted.
    if (!signal.aborted) {
      failure = asGatewayError(error);
      if (failure.code === 'GW_ERR_INTERNAL') exchange.log.error({ err: error }, 'internal error');
      if (!door.reply.headersSent) door.sendError(exchange, failure);
      else door.endBroken();
    }
  } finally {
    door.finish(exchange);
    endExchange(
      runtime.log,
      runtime.metrics,
      exchange,
      door.finalStatus(signal.aborted, failure),
      signal.aborted,
      failure,
    );
  }
}

/** The route's work; a stream's failure after its head comes back (it is an event in the stream already). */
async function serve(
  runtime: ExchangeRuntime,
  exchange: LiveExchange,
  door: Door,
  pathId: string,
): Promise<GatewayError | undefined> {
  const route = exchange.route;
  switch (route.kind) {
    case 'health':
      door.sendJson(200, exchange.responseHeaders, { status: 'ok' });
      return undefined;
    case 'ready': {
      const answer = await runtime.readiness.answer();
      door.sendJson(
        answer.ready ? 200 : 503,
        { ...exchange.responseHeaders, 'cache-control': 'no-store' },
        answer.body,
      );
      return undefined;
    }
    case 'models':
      door.sendJson(200, exchange.responseHeaders, runtime.models.list);
      return undefined;
    case 'model':
      door.sendJson(200, exchange.responseHeaders, runtime.models.retrieve(pathId, apiFamilyOf(exchange.req.headers)));
      return undefined;
    case 'caps':
      if (runtime.callerCaps === undefined) throw notEnabled(exchange.req);
      door.sendJson(
        200,
        { ...exchange.responseHeaders, 'cache-control': 'no-store' },
        await runtime.callerCaps(exchange),
      );
      return undefined;
    case 'resource':
      if (runtime.resources === undefined) throw notEnabled(exchange.req);
      await runtime.resources.serve(exchange, door, pathId);
      return undefined;
    case 'generate':
      if (route.dialect === undefined) throw notEnabled(exchange.req);
      return generate(runtime, exchange, door, route.dialect);
    case 'count_tokens':
      await countTokens(runtime, exchange, door);
      return undefined;
  }
}

/** Decodes the body, runs the chain, and sends the stream or the body. */
async function generate(
  runtime: ExchangeRuntime,
  exchange: LiveExchange,
  door: Door,
  dialect: Dialect,
): Promise<GatewayError | undefined> {
  const delivered = await door.body(exchange);
  const { request, echo } = dialect.decode(delivered.body);
  exchange.accept(request);
  exchange.stream = door.alwaysStreams || dialect.wantsStream(request);
  if (!delivered.generate) {
    // A warm-up: the request is checked and gets its response, with nothing generated (no upstream call, no cost).
    const encoder = dialect.streamEncoder(exchange, echo);
    if (encoder.warmUp === undefined)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        "This endpoint has no warm-ups: leave out 'generate'.",
        'generate',
      );
    door.sendWarmUp(encoder);
    return undefined;
  }
  const events = await runtime.chain.generate(exchange);
  if (exchange.stream) {
    const metrics = runtime.metrics;
    if (metrics === undefined) return door.sendStream(exchange, dialect.streamEncoder(exchange, echo), events);
    const counted = countClientWaits(events, metrics.streamsWaitingForClient);
    metrics.openStreams.inc();
    try {
      return await door.sendStream(exchange, dialect.streamEncoder(exchange, echo), counted.events);
    } finally {
      metrics.openStreams.dec();
      counted.release();
    }
  }
  const completion = await collect(events);
  exchange.answer?.see({ type: 'completion', completion });
  door.sendJson(200, exchange.responseHeaders, dialect.encodeBody(completion, exchange, echo));
  return undefined;
}

/** POST /v1/messages/count_tokens: never streams, never reaches the chain (no credits, no rate limit). */
async function countTokens(runtime: ExchangeRuntime, exchange: LiveExchange, door: Door): Promise<void> {
  const counting = exchange.route.dialect?.countTokens;
  if (counting === undefined || runtime.countTokens === undefined) throw notEnabled(exchange.req);
  const request = counting.decode((await door.body(exchange)).body);
  exchange.accept(request);
  for (const prepare of runtime.chain.prepareCount) prepare(request);
  refuseUnhandledSearch(request);
  const inputTokens = await runtime.countTokens(request, exchange.signal);
  door.sendJson(200, exchange.responseHeaders, counting.encode(inputTokens));
}

/** A non-streamed answer: the upstream's completion as it came, or (a search loop's) events folded into one. */
function collect(events: EventStream): Promise<ChatCompletion> {
  return new Promise((resolve, reject) => {
    let completion: ChatCompletion | undefined;
    const accumulator = new CompletionAccumulator();
    events.pipe({
      onEvent(event) {
        if (event.type === 'completion') completion = event.completion;
        else accumulator.addEvent(event);
      },
      onEnd() {
        try {
          resolve(completion ?? accumulator.result());
        } catch (error) {
          reject(error);
        }
      },
      onError: reject,
    });
  });
}

function notEnabled(req: RequestHead): GatewayError {
  return new GatewayError(
    'GW_ERR_ROUTE_NOT_ENABLED',
    `${printable(`${req.method} ${req.url ?? '/'}`)} is not enabled on this gateway yet; use POST /v1/chat/completions.`,
  );
}
