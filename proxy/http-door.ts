// The HTTP door (proxy/exchange/run.ts): a request routed, its body read within its limits, its answer written
// as a response; a request no route takes (or over the connection cap) is refused here, without an exchange.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { readJsonBody, type BodyLimits } from '../http/body.js';
import type { BodyBudget } from '../http/body-budget.js';
import { discardRestOfBody } from '../http/body-discard.js';
import type { ConnectionCap } from '../http/connection-cap.js';
import { GatewayError } from '../core/errors.js';
import { runExchange, type Door, type ExchangeRuntime } from './exchange/run.js';
import type { InFlight } from './node/in-flight.js';
import { sendBytes, sendError, sendEventStream, sendJson } from './respond.js';
import { printable } from '../core/printable.js';
import { nextRequestId } from '../http/request-id.js';
import { endWithoutExchange } from './exchange/request-end.js';
import { wireOf } from './routing/wire-header.js';
import { negotiatedWire, type WireSetting } from './routing/wire-negotiation.js';
import type { RouteMatch, Router } from './routing/router.js';

/** What a connection over the cap is told to wait before retrying, in seconds. */
const CONNECTIONS_RETRY_AFTER_S = 1;
/** What a body the node's budget cannot hold is told to wait: the bodies under way end within moments. */
const BODIES_RETRY_AFTER_S = 1;
/** Unknown paths are logged up to this length. */
const MAX_LOGGED_PATH = 200;

export interface GatewayOptions extends ExchangeRuntime {
  router: Router;
  /** The body's size, nesting and time limits. */
  bodyLimits: BodyLimits;
  /** The bytes of the bodies of all requests under way, at most (`server.bodies_in_flight_bytes`). */
  bodyBudget: BodyBudget;
  /** Connections over the cap get their first request refused (503). */
  connectionCap: ConnectionCap;
  /** The config's `wire`: `auto` negotiates per request (docs/wire.md). */
  configuredWire: WireSetting;
  /** Keep-alive events on quiet streams, for dialects that have one. */
  pingIntervalMs: number;
  /** Counts every request while it is under way; closes connections after their response while the node drains. */
  inFlight: InFlight;
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
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  await runExchange(
    options,
    {
      id,
      req,
      route: match.route,
      signal: controller.signal,
      wire: negotiatedWire(req.headers, options.configuredWire),
      wireHeader: () => wireOf(req.headers, options.configuredWire),
      pathId: match.pathId,
    },
    httpDoor(options, req, res),
  );
}

/** The HTTP door: the body read from the request (within its limits), the answer written as a response. */
function httpDoor(options: GatewayOptions, req: IncomingMessage, res: ServerResponse): Door {
  const held = options.bodyBudget.reservation();
  return {
    reply: res,
    alwaysStreams: false,
    async body(exchange) {
      try {
        return { body: await readJsonBody(req, options.bodyLimits, exchange.startedAt, held), generate: true };
      } catch (error) {
        if (error instanceof GatewayError && error.code === 'GW_ERR_SERVER_BODIES_IN_FLIGHT')
          exchange.responseHeaders['retry-after'] = String(BODIES_RETRY_AFTER_S);
        throw error;
      }
    },
    bodyStream() {
      return req;
    },
    sendJson(status, headers, body) {
      sendJson(res, status, headers, body);
    },
    sendBytes(status, headers, body) {
      return sendBytes(res, status, headers, body);
    },
    sendStream(exchange, encoder, events) {
      return sendEventStream(
        res,
        exchange.responseHeaders,
        encoder,
        events,
        exchange.signal,
        options.pingIntervalMs,
        exchange.answer,
      );
    },
    sendWarmUp() {
      throw new GatewayError('GW_ERR_INTERNAL', 'An HTTP request is never a warm-up.');
    },
    sendError(exchange, error) {
      sendError(res, exchange.route.errors, error, exchange.responseHeaders);
    },
    endBroken() {
      res.end();
    },
    finalStatus() {
      return res.statusCode;
    },
    finish(exchange) {
      held.release();
      if (!req.complete) discardRestOfBody(req, options.bodyLimits, exchange.startedAt);
    },
  };
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

function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
