// The admin listener: its own node:http server (127.0.0.1:8081 by default) for the admin API
// (/admin/v1/…, the admin token or a dashboard session), the session routes (/admin/login, /admin/session,
// /admin/logout) and the dashboard's files (/). It runs only when the admin token is set.
import { createServer } from 'node:http';
import type { Logger } from 'pino';
import type { Services } from '../services/services.js';
import type { GatewayConfig } from '../config/types.js';
import type { Tier } from '../limits/tiers.js';
import { closeServer, listen, urlOf } from '../http/listen.js';
import { apiRoutes } from './api.js';
import { DASHBOARD_DIR, loadStaticFiles, serveStaticFile } from './static-files.js';
import { createGuard } from './guard.js';
import { sessionRoutes } from './login.js';
import { Sessions } from './session.js';
import { secretMatcher } from './token.js';
import { throttledTokenCheck, TokenThrottle } from './token-throttle.js';
import { answerRoute, webHandler } from './web-handler.js';

const ADMIN_SESSION_COOKIE = 'gw_admin_session';

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
  const sessions = new Sessions(
    { cookie: ADMIN_SESSION_COOKIE, kind: 'operator', ttlMs: options.config.session_ttl_ms },
    options.services.store,
  );
  const authenticate = createGuard(tokenMatches, sessions);
  const api = apiRoutes(options.services, options.tiers);
  const session = sessionRoutes(tokenMatches, sessions);
  const files = loadStaticFiles(DASHBOARD_DIR);

  const server = createServer(
    { keepAliveTimeout: 65_000 },
    webHandler(log, 'admin', async (req, res, url) => {
      if (url.pathname === '/admin/v1' || url.pathname.startsWith('/admin/v1/')) {
        await authenticate(req);
        await answerRoute(req, res, api, url);
      } else if (url.pathname.startsWith('/admin/')) {
        await answerRoute(req, res, session, url);
      } else {
        serveStaticFile(files, req, res, url.pathname);
      }
    }),
  );
  await listen(server, options.config.port, options.config.host);
  return { url: urlOf(server), close: () => closeServer(server) };
}
