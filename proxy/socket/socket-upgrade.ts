// WebSocket mode: the node:http server's `upgrade` event, for the routes whose dialect has one (GET /v1/responses).
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import type { ConnectionCap } from '../../http/connection-cap.js';
import type { InFlight } from '../node/in-flight.js';
import type { Dialect, WireProfile } from '../../core/dialect.js';
import { asGatewayError, GatewayError } from '../../core/errors.js';
import { LiveExchange } from '../exchange/exchange.js';
import type { ExchangeRuntime } from '../exchange/run.js';
import { printable } from '../../core/printable.js';
import { nextRequestId } from '../../http/request-id.js';
import { endWithoutExchange } from '../exchange/request-end.js';
import type { Route, Router } from '../routing/router.js';
import { wireOf } from '../routing/wire-header.js';
import { negotiatedWire, type WireSetting } from '../routing/wire-negotiation.js';
import { SocketSession } from './socket-session.js';

export interface SocketModeOptions extends ExchangeRuntime {
  router: Router;
  connectionCap: ConnectionCap;
  /** The config's `wire`: `auto` negotiates from the upgrade request's headers (docs/wire.md). */
  configuredWire: WireSetting;
  /** The largest request message (server.body_limit_bytes): a larger one closes the connection (1009). */
  maxMessageBytes: number;
  idleTimeoutMs: number;
  /** Counts each response under way; while the node drains, upgrades are refused. */
  inFlight: InFlight;
}

/** The open WebSockets of a server, to end them when it stops (an upgraded socket is no longer the HTTP server's to close). */
export interface SocketMode {
  /** How many are open. */
  readonly open: number;
  /** The node drains: each closes with 1001 (going away) once the response under way, if any, is sent. */
  goAway(): void;
  /** Resolves when none is open. */
  closed(): Promise<void>;
  /** Ends every one at once. */
  close(): void;
}

/** What a connection over the cap is told to wait before retrying, in seconds (as on HTTP). */
const CONNECTIONS_RETRY_AFTER_S = 1;

export function attachSocketMode(server: Server, options: SocketModeOptions): SocketMode {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
  const sessions = new Set<SocketSession>();
  const waiters: Array<() => void> = [];
  const remove = (session: SocketSession): void => {
    sessions.delete(session);
    if (sessions.size === 0) for (const wake of waiters.splice(0)) wake();
  };
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    void upgrade(options, wss, sessions, remove, req, socket, head);
  });
  return {
    get open() {
      return sessions.size;
    },
    goAway() {
      for (const session of sessions) session.goAway();
    },
    closed() {
      if (sessions.size === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      for (const session of sessions) session.terminate();
    },
  };
}

async function upgrade(
  options: SocketModeOptions,
  wss: WebSocketServer,
  sessions: Set<SocketSession>,
  remove: (session: SocketSession) => void,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
): Promise<void> {
  // Until the switch, a reset socket must not throw at the process.
  const onSocketError = (): void => {};
  socket.on('error', onSocketError);
  const id = nextRequestId();
  const startedAt = performance.now();
  const match = options.router.matchSocket(req.url ?? '/');
  const headers: Record<string, string> = { 'x-request-id': id };
  let failure: GatewayError | undefined;
  let route: Route | undefined;
  let wire = negotiatedWire(req.headers, options.configuredWire);
  try {
    if (options.inFlight.draining)
      throw new GatewayError('GW_ERR_SERVER_SHUTTING_DOWN', 'This gateway node is shutting down; connect again.');
    if (options.connectionCap.refuses(socket)) {
      headers['retry-after'] = String(CONNECTIONS_RETRY_AFTER_S);
      throw new GatewayError(
        'GW_ERR_SERVER_TOO_MANY_CONNECTIONS',
        'This gateway node has too many open connections; retry shortly.',
      );
    }
    if (!match.found) {
      const path = printable(pathOf(req.url ?? '/'));
      throw match.reason === 'path'
        ? new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `Unknown endpoint: ${path}.`)
        : new GatewayError('GW_ERR_ROUTE_METHOD_NOT_ALLOWED', `${path} does not take WebSocket connections.`);
    }
    route = match.route;
    wire = wireOf(req.headers, options.configuredWire);
    const controller = new AbortController();
    socket.once('close', () => controller.abort());
    const exchange = new LiveExchange({
      id,
      req,
      res: { headersSent: false, statusCode: 101 },
      route,
      rootLog: options.log,
      signal: controller.signal,
      wire,
      thinkingSigner: options.thinkingSigner,
    });
    for (const hook of options.chain.onConnect) await hook(exchange);
    Object.assign(headers, exchange.responseHeaders);
  } catch (error) {
    failure = asGatewayError(error);
    if (failure.code === 'GW_ERR_INTERNAL') options.log.error({ requestId: id, err: error }, 'internal error');
    const errors = route?.errors ?? (match.found ? match.route.errors : match.errors);
    refuse(socket, errors.renderError(failure), headers);
    logUpgrade(options, { id, req, route, wire }, failure.status, startedAt, failure);
    return;
  }
  const opened = route as Route & { dialect: Dialect };
  wss.handleUpgrade(req, socket, head, (ws) => {
    socket.off('error', onSocketError);
    const session = new SocketSession(ws, socket, req, opened, wire, options);
    sessions.add(session);
    ws.once('close', () => remove(session));
    // Opened while the drain began (the upgrade was under way): it goes away at once too.
    if (options.inFlight.draining) session.goAway();
    logUpgrade(options, { id, req, route: opened, wire }, 101, startedAt, undefined);
  });
}

/** The upgrade refused before the switch: an HTTP answer in the route's dialect, and the connection closed. */
function refuse(socket: Socket, rendered: { status: number; body: object }, headers: Record<string, string>): void {
  const body = JSON.stringify(rendered.body);
  const lines = [`HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}`];
  const all = {
    ...headers,
    connection: 'close',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  };
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** The upgrade's own line and count (each request message on the socket then has its own). */
function logUpgrade(
  options: SocketModeOptions,
  upgrade: { id: string; req: IncomingMessage; route: Route | undefined; wire: WireProfile },
  status: number,
  startedAt: number,
  failure: GatewayError | undefined,
): void {
  endWithoutExchange(
    options.log,
    options.metrics,
    { ...upgrade, loggedPath: printable(pathOf(upgrade.req.url ?? '/'), 200) },
    status,
    startedAt,
    failure,
  );
}

function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
