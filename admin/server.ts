// The admin listener: its own node:http server (127.0.0.1:8081 by default) for the admin API
// (/admin/v1/…, the admin token or a dashboard session), the session routes (/admin/login, /admin/session,
// /admin/logout) and the dashboard's files (/). It runs only when the admin token is set.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Services } from '../services/services.js';
import type { GatewayConfig } from '../config/types.js';
import type { Tier } from '../limits/tiers.js';
import { closeServer, listen, urlOf } from '../proxy/listen.js';
import { apiRoutes } from './api.js';
import { loadDashboard } from './dashboard.js';
import { AdminError, asAdminError } from './errors.js';
import { createGuard } from './guard.js';
import { SECURITY_HEADERS, sendError, sendJson } from './http.js';
import { sessionRoutes } from './login.js';
import { matchRoute, type AdminRoute } from './routes.js';
import { Sessions } from './session.js';
import { secretMatcher } from './token.js';
import { throttledTokenCheck, TokenThrottle } from './token-throttle.js';

export interface AdminServerOptions {
  services: Services;
  config: GatewayConfig['admin'];
  /** The admin token (readAdminToken: at least 16 characters). */
  token: string;
  /** The rate-limit tiers (config `limits.tiers`), to show each org's. */
  tiers: readonly Tier[];
  log: Logger;
  /** Failed admin-token attempts per address (a test gives one with its own clock). */
  throttle?: TokenThrottle;
}

export interface RunningAdmin {
  /** The listener's base URL; the dashboard is at `/`. */
  url: string;
  close(): Promise<void>;
}

export async function startAdminServer(options: AdminServerOptions): Promise<RunningAdmin> {
  const { log } = options;
  const tokenMatches = throttledTokenCheck(secretMatcher(options.token), options.throttle ?? new TokenThrottle());
  const sessions = new Sessions(options.config.session_ttl_ms);
  const authenticate = createGuard(tokenMatches, sessions);
  const api = apiRoutes(options.services, options.tiers);
  const session = sessionRoutes(tokenMatches, sessions);
  const files = loadDashboard();

  const serveFile = (req: IncomingMessage, res: ServerResponse, pathname: string): void => {
    const file = files.get(pathname);
    if (file === undefined) throw new AdminError('not_found', `no page ${pathname}`);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw new AdminError('method_not_allowed', `${req.method} is not allowed on ${pathname}`, undefined, {
        allow: 'GET, HEAD',
      });
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': file.type, 'content-length': file.body.length });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };

  const dispatch = async (
    req: IncomingMessage,
    res: ServerResponse,
    routes: readonly AdminRoute[],
    url: URL,
  ): Promise<void> => {
    const { route, params } = matchRoute(routes, req.method ?? 'GET', url.pathname);
    const answer = await route.handle({ req, params, query: url.searchParams });
    sendJson(res, answer.status, answer.body, answer.headers);
  };

  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://admin.invalid');
    const done = (error?: unknown): void => {
      if (error !== undefined) {
        const failure = asAdminError(error);
        if (failure.status >= 500) log.error({ err: error, path: url.pathname }, 'admin request failed');
        if (!res.headersSent) sendError(res, failure);
        else res.destroy();
      }
      log.info(
        {
          admin: true,
          method: req.method,
          path: url.pathname,
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
        },
        'admin request',
      );
    };
    const work = async (): Promise<void> => {
      if (url.pathname === '/admin/v1' || url.pathname.startsWith('/admin/v1/')) {
        authenticate(req);
        await dispatch(req, res, api, url);
      } else if (url.pathname.startsWith('/admin/')) {
        await dispatch(req, res, session, url);
      } else {
        serveFile(req, res, url.pathname);
      }
    };
    work().then(() => done(), done);
  });
  await listen(server, options.config.port, options.config.host);
  return { url: urlOf(server), close: () => closeServer(server) };
}
