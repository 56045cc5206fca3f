import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { CompletionAccumulator } from './accumulate.js';
import { readJsonBody } from './body.js';
import type { Chain } from './chain.js';
import type { ChatRequest, JsonObject } from './canonical.js';
import type { Dialect, WireProfile } from './dialect.js';
import { asGatewayError, GatewayError } from './errors.js';
import { Exchange } from './exchange.js';
import type { EventStream } from './plugin.js';
import { sendError, sendEventStream, sendJson } from './respond.js';
import { refuseUnhandledSearch } from './unhandled-search.js';
import { nextRequestId } from './request-id.js';
import type { Router } from './router.js';

export interface GatewayOptions {
  router: Router;
  chain: Chain;
  log: Logger;
  bodyLimitBytes: number;
  defaultWire: WireProfile;
  models: JsonObject;
  /** Keep-alive events on quiet streams, for dialects that have one. */
  pingIntervalMs: number;
  /** Counts the prompt tokens the upstream will see for a canonical request (count_tokens). */
  countTokens: ((request: ChatRequest, signal: AbortSignal) => Promise<number>) | undefined;
}

/** The HTTP entry point: route, run the chain, write the answer in the caller's dialect. */
export function createRequestListener(options: GatewayOptions): RequestListener {
  return (req, res) => {
    void handle(options, req, res);
  };
}

async function handle(options: GatewayOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = nextRequestId();
  const match = options.router.match(req.method ?? 'GET', req.url ?? '/');
  if (!match.found) {
    const error = match.reason === 'path'
      ? new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `Unknown endpoint: ${req.method} ${req.url}.`)
      : new GatewayError('GW_ERR_ROUTE_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.url}.`);
    req.resume();
    sendError(res, match.errors, error, { 'x-request-id': id });
    return;
  }
  const route = match.route;
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const exchange = new Exchange({ id, req, res, route, rootLog: options.log, signal: controller.signal, wire: options.defaultWire });
  let failure: GatewayError | undefined;
  try {
    exchange.wire = wireOf(req.headers['x-gateway-wire'], options.defaultWire);
    for (const hook of options.chain.onRequest) await hook(exchange);
    switch (route.kind) {
      case 'health':
        sendJson(res, 200, exchange.responseHeaders, { status: 'ok' });
        break;
      case 'models':
        sendJson(res, 200, exchange.responseHeaders, options.models);
        break;
      case 'generate':
        if (route.dialect === undefined) throw notEnabled(req);
        failure = await generate(options, exchange, route.dialect);
        break;
      case 'count_tokens':
        await countTokens(options, exchange);
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
    const ms = Math.round((performance.now() - exchange.startedAt) * 100) / 100;
    const aborted = controller.signal.aborted;
    options.log.info({ requestId: id, method: req.method, path: route.path, status: res.statusCode, ms, aborted, error: failure?.code, ...exchange.logFields }, 'request');
  }
}

/** Reads and decodes the body, runs the chain, and writes the stream or the body. */
async function generate(options: GatewayOptions, exchange: Exchange, dialect: Dialect): Promise<GatewayError | undefined> {
  exchange.body = await readJsonBody(exchange.req, options.bodyLimitBytes);
  const request = dialect.decode(exchange.body, exchange);
  exchange.request = request;
  const events = await options.chain.generate(exchange);
  if (dialect.wantsStream(request)) {
    return sendEventStream(exchange.res, exchange.responseHeaders, dialect.streamEncoder(exchange), events, exchange.signal, options.pingIntervalMs);
  }
  sendJson(exchange.res, 200, exchange.responseHeaders, dialect.encodeBody(await collect(events), exchange));
  return undefined;
}

/** POST /v1/messages/count_tokens: never streams, never reaches the chain (no credits, no rate limit). */
async function countTokens(options: GatewayOptions, exchange: Exchange): Promise<void> {
  const counting = exchange.route.dialect?.countTokens;
  if (counting === undefined || options.countTokens === undefined) throw notEnabled(exchange.req);
  exchange.body = await readJsonBody(exchange.req, options.bodyLimitBytes);
  const request = counting.decode(exchange.body);
  for (const prepare of options.chain.prepareCount) prepare(request);
  refuseUnhandledSearch(request);
  const inputTokens = await options.countTokens(request, exchange.signal);
  sendJson(exchange.res, 200, exchange.responseHeaders, counting.encode(inputTokens));
}

async function collect(events: EventStream): Promise<ReturnType<CompletionAccumulator['result']>> {
  const accumulator = new CompletionAccumulator();
  for await (const event of events) accumulator.addEvent(event);
  return accumulator.result();
}

function notEnabled(req: IncomingMessage): GatewayError {
  req.resume();
  return new GatewayError('GW_ERR_ROUTE_NOT_ENABLED', `${req.method} ${req.url} is not enabled on this gateway yet; use POST /v1/chat/completions.`);
}

function wireOf(header: string | string[] | undefined, fallback: WireProfile): WireProfile {
  if (header === undefined) return fallback;
  if (header === 'spec' || header === 'openai') return header;
  throw new GatewayError('GW_ERR_REQUEST_BAD_HEADER', "Invalid value for header 'x-gateway-wire': must be 'spec' or 'openai'.", 'x-gateway-wire');
}
