import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { GatewayTracing } from '../telemetry/tracing.js';
import { CompletionAccumulator } from './accumulate.js';
import { AnswerWatch } from './answer-watch.js';
import { readJsonBody, type BodyLimits } from './body.js';
import { discardRestOfBody } from './body-discard.js';
import type { Chain } from './chain.js';
import type { ChatCompletion, ChatRequest } from './canonical.js';
import type { ConnectionCap } from './connection-cap.js';
import type { Dialect } from './dialect.js';
import { asGatewayError, GatewayError } from './errors.js';
import { Exchange } from './exchange.js';
import { traceExchange } from './exchange-trace.js';
import type { EventStream } from './event-stream.js';
import type { InFlight } from './in-flight.js';
import type { Readiness } from './readiness.js';
import { sendError, sendEventStream, sendJson } from './respond.js';
import { refuseUnhandledSearch } from './unhandled-search.js';
import type { ThinkingSigner } from './thinking-signer.js';
import { printable } from './printable.js';
import { nextRequestId } from './request-id.js';
import { endExchange, endWithoutExchange } from './request-end.js';
import { wireOf } from './wire-header.js';
import { negotiatedWire, type WireSetting } from './wire-negotiation.js';
import type { RouteMatch, Router } from './router.js';
import { modelsDialectOf, type ModelCatalogue } from './models.js';

/** What a connection over the cap is told to wait before retrying, in seconds. */
const CONNECTIONS_RETRY_AFTER_S = 1;
/** Unknown paths are logged up to this length. */
const MAX_LOGGED_PATH = 200;

export interface GatewayOptions {
  router: Router;
  chain: Chain;
  log: Logger;
  /** The body's size, nesting and time limits. */
  bodyLimits: BodyLimits;
  /** Connections over the cap get their first request refused (503). */
  connectionCap: ConnectionCap;
  /** The config's `wire`: `auto` negotiates per request (docs/wire.md). */
  configuredWire: WireSetting;
  /** What GET /v1/models and GET /v1/models/{id} answer. */
  models: ModelCatalogue;
  /** Keep-alive events on quiet streams, for dialects that have one. */
  pingIntervalMs: number;
  /** Signs thinking on the way out and verifies it when a client passes it back. */
  thinkingSigner: ThinkingSigner;
  /** Counts the prompt tokens the upstream will see for a canonical request (count_tokens). */
  countTokens: ((request: ChatRequest, signal: AbortSignal) => Promise<number>) | undefined;
  /** Counts every request while it is under way; closes connections after their response while the node drains. */
  inFlight: InFlight;
  /** GET /ready's answer. */
  readiness: Readiness;
  /** The node's Prometheus metrics, when they are on (`metrics.port`). */
  metrics: GatewayMetrics | undefined;
  /** The node's tracer, when it traces (`tracing.otlp_url`). */
  tracing: GatewayTracing | undefined;
}

/** The HTTP entry point: route, run the chain, write the answer in the caller's dialect. */
export function createRequestListener(options: GatewayOptions): RequestListener {
  return (req, res) => {
    const leave = options.inFlight.http(res);
    void handle(options, req, res).finally(leave);
  };
}

async function handle(options: GatewayOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = nextRequestId();
  const match = options.router.match(req.method ?? 'GET', req.url ?? '/', req.headers);
  const overCap = options.connectionCap.refuses(req.socket);
  if (!match.found || overCap) {
    refuse(options, req, res, id, match, overCap);
    return;
  }
  const route = match.route;
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const exchange = new Exchange({
    id,
    req,
    res,
    route,
    rootLog: options.log,
    signal: controller.signal,
    wire: negotiatedWire(req.headers, options.configuredWire),
    thinkingSigner: options.thinkingSigner,
  });
  // The probes answer for the node, not for a caller: no span (a load balancer's every few seconds).
  if (options.tracing !== undefined && route.kind !== 'health' && route.kind !== 'ready')
    traceExchange(exchange, options.tracing);
  if (options.metrics !== undefined || exchange.trace !== undefined) exchange.answer = new AnswerWatch();
  let failure: GatewayError | undefined;
  try {
    exchange.wire = wireOf(req.headers, options.configuredWire);
    // The probes answer for the node, not for a caller: no plugin runs (no key, no rate limit, no ledger).
    if (route.kind !== 'health' && route.kind !== 'ready')
      for (const hook of options.chain.onRequest) await hook(exchange);
    switch (route.kind) {
      case 'health':
        sendJson(res, 200, exchange.responseHeaders, { status: 'ok' });
        break;
      case 'ready': {
        const answer = await options.readiness.answer();
        sendJson(
          res,
          answer.ready ? 200 : 503,
          { ...exchange.responseHeaders, 'cache-control': 'no-store' },
          answer.body,
        );
        break;
      }
      case 'models':
        sendJson(res, 200, exchange.responseHeaders, options.models.list);
        break;
      case 'model':
        sendJson(
          res,
          200,
          exchange.responseHeaders,
          options.models.retrieve(match.modelId, modelsDialectOf(req.headers)),
        );
        break;
      case 'generate':
        if (route.dialect === undefined) throw notEnabled(req);
        failure = await generate(options, exchange, res, route.dialect);
        break;
      case 'count_tokens':
        await countTokens(options, exchange, res);
        break;
    }
  } catch (error) {
    // A client that went away needs no answer; its upstream call is already aborted.
    if (!controller.signal.aborted) {
      failure = asGatewayError(error);
      if (failure.code === 'GW_ERR_INTERNAL') exchange.log.error({ err: error }, 'internal error');
      if (!res.headersSent) sendError(res, route.errors, failure, exchange.responseHeaders);
      else res.end();
    }
  } finally {
    if (!req.complete) discardRestOfBody(req, options.bodyLimits, exchange.startedAt);
    endExchange(options.log, options.metrics, exchange, res.statusCode, controller.signal.aborted, failure);
  }
}

/** A request answered without running a route: an unknown path or method, or a connection over the cap. */
function refuse(
  options: GatewayOptions,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  match: RouteMatch,
  overCap: boolean,
): void {
  const startedAt = performance.now();
  const path = pathOf(req.url ?? '/');
  let error: GatewayError;
  const headers: Record<string, string> = { 'x-request-id': id };
  if (overCap) {
    error = new GatewayError(
      'GW_ERR_SERVER_TOO_MANY_CONNECTIONS',
      'This gateway node has too many open connections; retry shortly.',
    );
    headers['retry-after'] = String(CONNECTIONS_RETRY_AFTER_S);
  } else if (!match.found && match.reason === 'path') {
    error = new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `Unknown endpoint: ${printable(`${req.method} ${path}`)}.`);
  } else {
    error = new GatewayError('GW_ERR_ROUTE_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${printable(path)}.`);
  }
  sendError(res, match.found ? match.route.errors : match.errors, error, headers);
  if (!req.complete) discardRestOfBody(req, options.bodyLimits, startedAt);
  endWithoutExchange(
    options.log,
    options.metrics,
    {
      id,
      req,
      loggedPath: printable(path, MAX_LOGGED_PATH),
      route: match.found ? match.route : undefined,
      wire: negotiatedWire(req.headers, options.configuredWire),
    },
    res.statusCode,
    startedAt,
    error,
  );
}

/** Reads and decodes the body, runs the chain, and writes the stream or the body. */
async function generate(
  options: GatewayOptions,
  exchange: Exchange,
  res: ServerResponse,
  dialect: Dialect,
): Promise<GatewayError | undefined> {
  const body = await readJsonBody(exchange.req, options.bodyLimits, exchange.startedAt);
  const { request, echo } = dialect.decode(body);
  exchange.accept(request);
  exchange.stream = dialect.wantsStream(request);
  const events = await options.chain.generate(exchange);
  if (exchange.stream) {
    const openStreams = options.metrics?.openStreams;
    openStreams?.inc();
    try {
      return await sendEventStream(
        res,
        exchange.responseHeaders,
        dialect.streamEncoder(exchange, echo),
        events,
        exchange.signal,
        options.pingIntervalMs,
        exchange.answer,
      );
    } finally {
      openStreams?.dec();
    }
  }
  const completion = await collect(events);
  exchange.answer?.see({ type: 'completion', completion });
  sendJson(res, 200, exchange.responseHeaders, dialect.encodeBody(completion, exchange, echo));
  return undefined;
}

/** POST /v1/messages/count_tokens: never streams, never reaches the chain (no credits, no rate limit). */
async function countTokens(options: GatewayOptions, exchange: Exchange, res: ServerResponse): Promise<void> {
  const counting = exchange.route.dialect?.countTokens;
  if (counting === undefined || options.countTokens === undefined) throw notEnabled(exchange.req);
  const request = counting.decode(await readJsonBody(exchange.req, options.bodyLimits, exchange.startedAt));
  exchange.accept(request);
  for (const prepare of options.chain.prepareCount) prepare(request);
  refuseUnhandledSearch(request);
  const inputTokens = await options.countTokens(request, exchange.signal);
  sendJson(res, 200, exchange.responseHeaders, counting.encode(inputTokens));
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

function notEnabled(req: IncomingMessage): GatewayError {
  return new GatewayError(
    'GW_ERR_ROUTE_NOT_ENABLED',
    `${printable(`${req.method} ${req.url ?? '/'}`)} is not enabled on this gateway yet; use POST /v1/chat/completions.`,
  );
}

function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
