// The console's listener: its own node:http server (console.host:console.port) for the members' pages
// (console/pages/, with the operator dashboard's look, icon and the parts of an organization's page both
// show: cards, usage panel, keys, audit log, confirmation, API calls), the sign-in routes
// (/console/sign-in/…) and the member API (/console/v1/…). It runs only when `console.port` is set.
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { clientAddressOf } from '../admin/client-address.js';
import { DASHBOARD_DIR, loadStaticFiles, serveStaticFile, type StaticFile } from '../admin/static-files.js';
import type { AdminRoute } from '../admin/routes.js';
import { answerRoute, webHandler } from '../admin/web-handler.js';
import { packageRoot } from '../config/package-root.js';
import { ConfigError } from '../config/errors.js';
import type { ConsoleConfig, GatewayConfig } from '../config/types.js';
import type { Tier } from '../limits/tiers.js';
import { closeServer, listen, urlOf } from '../http/listen.js';
import type { Services } from '../services/services.js';
import { EmailSignIn } from './email-sign-in.js';
import { memberApiRoutes, type WindowUse } from './member-api.js';
import { memberSessions } from './member-session.js';
import { OidcSignIn } from './oidc-sign-in.js';
import { consolePayments } from './payments/console-payments.js';
import { SignInMail } from './sign-in-mail.js';
import { signInRoutes } from './sign-in-routes.js';

export const CONSOLE_PAGES_DIR = join(packageRoot(), 'console', 'pages');
const OIDC_CALLBACK_PATH = '/console/sign-in/oidc/callback';
const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** The dashboard's own page, which the console does not serve; its style sheet it serves as /dashboard.css. */
const DASHBOARD_PAGE: ReadonlySet<string> = new Set(['/', '/app.js', '/style.css']);

export interface ConsoleServerOptions {
  services: Services;
  config: GatewayConfig['console'];
  mail: GatewayConfig['mail'];
  /** The rate-limit tiers (config `limits.tiers`). */
  tiers: readonly Tier[];
  /** The rate limiter's reading of an organization's windows, when the ratelimit plugin runs. */
  windowUse: ((orgId: string) => Promise<WindowUse>) | undefined;
  /** The OIDC client's secret (the variable `console.oidc.client_secret_env` names), if any. */
  oidcClientSecret: string | undefined;
  /** Self-serve top-ups through Stripe (off without its keys). */
  payments: GatewayConfig['payments'];
  /** Whether the gateway runs batches (`batch.enabled`): the batches panel and its routes. */
  batches: boolean;
  log: Logger;
}

export interface RunningConsole {
  /** The listener's base URL. */
  url: string;
  close(): Promise<void>;
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<RunningConsole> {
  const { config, services, log } = options;
  const files = consoleFiles();
  // The routes need the console's public URL (in links and the OIDC redirect URI), which without
  // `public_url` is the listener's own, known once it listens; no request comes before that.
  let signIn: AdminRoute[] = [];
  let api: AdminRoute[] = [];
  let webhooks: AdminRoute[] = [];
  const server = createServer(
    { keepAliveTimeout: 65_000 },
    webHandler(log, 'console', async (req, res, url) => {
      if (url.pathname.startsWith('/console/sign-in/')) await answerRoute(req, res, signIn, url);
      else if (url.pathname.startsWith('/console/')) await answerRoute(req, res, api, url);
      else if (url.pathname.startsWith('/webhooks/')) await answerRoute(req, res, webhooks, url);
      else serveStaticFile(files, req, res, url.pathname);
    }),
  );
  await listen(server, config.port ?? 0, config.host);
  const publicUrl = config.public_url ?? urlOf(server);

  const addressOf = clientAddressOf(config.trusted_proxies);
  const sessions = memberSessions(config.session_ttl_ms, services.store, addressOf);
  const mail =
    options.mail.url === undefined
      ? undefined
      : new SignInMail(options.mail.url, options.mail.from, config.link_ttl_ms);
  const emailSignIn =
    mail === undefined
      ? undefined
      : new EmailSignIn({ store: services.store, sessions, config, mail, publicUrl, addressOf, log });
  const { issuer, client_id: clientId } = config.oidc;
  const oidc =
    issuer === undefined || clientId === undefined
      ? undefined
      : {
          signIn: new OidcSignIn({
            issuer,
            clientId,
            clientSecret: options.oidcClientSecret,
            redirectUri: `${publicUrl}${OIDC_CALLBACK_PATH}`,
            logins: async () => (await services.store()).oidcLogins,
          }),
          label: config.oidc.label,
        };
  signIn = signInRoutes({ email: emailSignIn, oidc, sessions, store: services.store, log });
  api = memberApiRoutes({
    store: services.store,
    sessions,
    tiers: options.tiers,
    revocations: services.revocations,
    windowUse: options.windowUse,
    webhookKey: services.webhookKey,
    batches: options.batches,
    emailSignIn,
    addressOf,
  });
  const payments = consolePayments({
    config: options.payments,
    mail: options.mail,
    store: services.store,
    sessions,
    publicUrl,
    log,
  });
  api = [...api, ...payments.routes];
  webhooks = payments.webhooks;
  return {
    url: urlOf(server),
    async close() {
      await closeServer(server);
      await emailSignIn?.close();
      mail?.close();
      await payments.close();
    },
  };
}

/** The console's sign-in ways, checked before anything starts: at least one, and an OIDC issuer over TLS unless on loopback. */
export function checkConsoleConfig(config: ConsoleConfig, mail: GatewayConfig['mail']): void {
  const { issuer, client_id: clientId } = config.oidc;
  if ((issuer === undefined) !== (clientId === undefined))
    throw new ConfigError(
      'console.oidc: set both issuer and client_id (GATEWAY_OIDC_ISSUER, GATEWAY_OIDC_CLIENT_ID), or neither',
    );
  if (mail.url === undefined && issuer === undefined)
    throw new ConfigError(
      'console: members need a way to sign in: set mail.url (GATEWAY_SMTP_URL) for e-mail links, or console.oidc.issuer and client_id',
    );
  if (issuer !== undefined && issuer.startsWith('http://') && !LOOPBACK.has(new URL(issuer).hostname))
    throw new ConfigError(`console.oidc.issuer: ${issuer} must be https (plain http only on loopback)`);
}

/** The console's pages, with the dashboard's shared modules and look: every file of the dashboard but its own page. */
function consoleFiles(): ReadonlyMap<string, StaticFile> {
  const dashboard = loadStaticFiles(DASHBOARD_DIR);
  const files = new Map(loadStaticFiles(CONSOLE_PAGES_DIR));
  for (const [path, file] of dashboard) if (!DASHBOARD_PAGE.has(path)) files.set(path, file);
  files.set('/dashboard.css', dashboard.get('/style.css')!);
  return files;
}
