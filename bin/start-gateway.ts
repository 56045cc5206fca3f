// The composition root: the one place that knows every part by name and puts them together.
import type { DestinationStream, Logger } from 'pino';
import { startAdminServer } from '../admin/server.js';
import { readAdminToken } from '../admin/token.js';
import { checkPaymentsConfig } from '../console/payments/payments-config.js';
import { dataDirOf } from '../config/data-dir.js';
import { loadThinkingSecret } from '../config/thinking-secret.js';
import { loadPlugins } from '../plugins/load-plugins.js';
import { tiersOf } from '../limits/tiers.js';
import type { LoadedConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/types.js';
import { builtinPlugins } from '../plugins/index.js';
import { createDialects } from '../dialects/registry.js';
import { composeChain } from '../proxy/exchange/chain.js';
import { ConnectionCap } from '../http/connection-cap.js';
import { BodyBudget } from '../http/body-budget.js';
import { checkEveryMs, Deadlines } from '../http/deadlines.js';
import { drainNode } from '../proxy/node/drain.js';
import { capabilityOf } from '../core/capabilities.js';
import { GatewayError } from '../core/errors.js';
import { InFlight } from '../proxy/node/in-flight.js';
import { Readiness } from '../proxy/node/readiness.js';
import { createRequestListener } from '../proxy/http-door.js';
import type { ExchangeRuntime } from '../proxy/exchange/run.js';
import { BATCH_ROUTES } from '../batch/batch-api.js';
import { batchService } from '../batch/batch-service.js';
import { createHttpServer } from '../http/http-server.js';
import { attachSocketMode } from '../proxy/socket/socket-upgrade.js';
import { listen, urlOf } from '../http/listen.js';
import { createLogger } from '../http/log.js';
import { modelCatalogue } from '../proxy/routing/models.js';
import { Router } from '../proxy/routing/router.js';
import { createChatCall } from '../proxy/upstream/chat-call.js';
import { CacheIsolator } from '../proxy/upstream/cache-isolation.js';
import { anyReplicaHealthy } from '../proxy/upstream/upstream-health.js';
import { HealthChecks } from '../proxy/upstream/health-checks.js';
import { UpstreamPool } from '../proxy/upstream/pool.js';
import { ThinkingSigner } from '../core/thinking-signer.js';
import { defaultThinkingField, upstreamFields } from '../proxy/upstream/request-fields.js';
import { countedTokens } from '../tokenizer/counted-tokens.js';
import { createTokenCounter } from '../tokenizer/token-counter.js';
import { hasRedis, openServices } from '../services/services.js';
import type { GatewayTracing } from '../telemetry/tracing.js';
import { packageVersion } from '../config/package-version.js';
import { Components } from './components.js';
import { startMetricsServer } from './metrics-server.js';
import { redisCheck, storeCheck, upstreamCheck } from './readiness-checks.js';
import { discoverUpstream } from './upstream-discovery.js';
import { startEmbeddedSim } from './embedded-sim.js';
import { storeOptionsOf } from '../services/store-options.js';
import { LinkRevocationBus } from '../cluster/link-revocation-bus.js';
import type { PrimaryLink } from '../cluster/primary-link.js';

export interface RunningGateway {
  /** The gateway's base URL, e.g. http://127.0.0.1:8080 (the chat SDKs' base is this + /v1). */
  url: string;
  /** The upstream URLs in use (the embedded sim's when none is configured). */
  upstreamUrls: string[];
  /** The admin API and dashboard's base URL, when the admin token is set. */
  adminUrl?: string;
  /** The customers' console's base URL, when `console.port` is set. */
  consoleUrl?: string;
  /** The metrics listener's base URL (GET /metrics), when `metrics.port` is set. */
  metricsUrl?: string;
  log: Logger;
  /** Stops at once: requests under way are cut (as on an upstream break) and settled, then everything closes. */
  close(): Promise<void>;
  /**
   * Stops gracefully (SIGTERM): no new connections, requests under way finish (up to
   * `server.drain_timeout_ms`, then they are cut) and are settled, then everything closes. Rejects if a
   * request did not end (its ledger row unsettled).
   */
  drain(): Promise<void>;
  /** During a drain: cuts what is left now (a second signal); the drain still settles it and closes. */
  cutDrain(): void;
}

/** GET /ready reuses a result this long, and gives up on a check after this long. */
const READY_CACHE_MS = 1000;
const READY_TIMEOUT_MS = 2000;
/** /ready's probe of an upstream replica's health endpoint gives up after this long (server.ready_checks_upstream). */
const UPSTREAM_PROBE_MS = 1000;

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  /** Where logs go (stdout by default). */
  logDestination?: DestinationStream;
  /** The plugins' clock (Unix ms), and /ready's cache's; Date.now by default (tests give one they move). */
  now?: () => number;
  /**
   * A worker of a node of several (bin/workers.ts): its channel to the primary, which holds the node's shared
   * counters and relays revocations where no Redis does, and serves the metrics of all workers.
   */
  primary?: PrimaryLink;
}

export async function startGateway(loaded: LoadedConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const { config } = loaded;
  const env = options.env ?? process.env;
  // Checked before anything starts: a short admin token stops the start.
  const adminToken = readAdminToken(config.admin.token_env, env);
  // The console, the metrics and the tracer are loaded only when configured: a node without them does not
  // hold their packages (OpenID Connect, mail, Stripe, prom-client, OpenTelemetry) in memory.
  if (config.console.port !== undefined)
    (await import('../console/server.js')).checkConsoleConfig(config.console, config.mail);
  checkPaymentsConfig(config);
  const log = createLogger(config.log.level, options.logDestination);
  // The parts start in this order and close in the reverse: the listeners first (the gateway's own drains
  // its requests), then the plugins settle their last rows (the meter's group commit), the last traces go
  // out, and the store writes the keys' last-used times.
  const node = new Components((name, error) => log.warn({ err: error, part: name }, 'a part did not close'));
  try {
    return await assemble(node, loaded, {
      env,
      log,
      adminToken,
      ...(options.now ? { now: options.now } : {}),
      ...(options.primary ? { primary: options.primary } : {}),
    });
  } catch (error) {
    // A part that failed to start: what had started closes, the last first, and the error goes on.
    await node.abandon();
    throw error;
  }
}

interface Assembly {
  env: NodeJS.ProcessEnv;
  log: Logger;
  adminToken: string | undefined;
  now?: () => number;
  primary?: PrimaryLink;
}

/** Starts the node's parts into `node`, in order; the gateway's own listener last. */
async function assemble(node: Components, loaded: LoadedConfig, options: Assembly): Promise<RunningGateway> {
  const { config } = loaded;
  const { env, log, adminToken, primary } = options;
  let urls = config.upstream.urls;
  if (urls.length === 0) {
    const sim = await node.start({ name: 'sim', start: () => startEmbeddedSim(config), close: (sim) => sim.close() });
    urls = [`${sim.url}/v1`];
    log.info({ upstream: urls[0] }, 'no upstream configured: the built-in reference upstream (sim) runs in-process');
  }
  const upstreamApiKey =
    config.upstream.api_key ?? (config.upstream.api_key_env ? env[config.upstream.api_key_env] : undefined);
  // The server's kind, context, slots and cache isolation, as the first upstream shows them (and the config overrides).
  const upstream = await node.start({
    name: 'upstream discovery',
    start: () => discoverUpstream(config, urls[0]!, upstreamApiKey, log),
  });
  const { flavor, contextTokens } = upstream;
  // Recorded only when they can be scraped: a node without a metrics port pays nothing for them.
  const metrics =
    config.metrics.port === undefined
      ? undefined
      : new (await import('../telemetry/metrics.js')).GatewayMetrics({ perOrg: config.metrics.per_org });
  const counter = await node.start({
    name: 'token counter',
    start: () =>
      createTokenCounter(config.tokenizer, {
        upstreamUrls: urls,
        ...(upstreamApiKey !== undefined ? { upstreamApiKey } : {}),
        servedModel: config.model.upstream_name,
        upstreamFlavor: flavor,
        maxBodyBytes: config.upstream.max_body_bytes,
        baseDir: loaded.baseDir,
        log,
      }),
    close: (counter) => counter.close(),
  });
  const pool = await node.start({
    name: 'upstream pool',
    start: () =>
      new UpstreamPool({
        urls,
        apiKey: upstreamApiKey,
        connections: upstream.connections,
        connectTimeoutMs: config.upstream.connect_timeout_ms,
        firstByteTimeoutMs: config.upstream.first_byte_timeout_ms,
        idleTimeoutMs: config.upstream.idle_timeout_ms,
        retries: config.upstream.retries,
        retryBaseMs: config.upstream.retry_base_ms,
        retryMaxMs: config.upstream.retry_max_ms,
        unhealthyMs: config.upstream.unhealthy_ms,
        queueTimeoutMs: config.upstream.queue_timeout_ms,
        routing: config.upstream.routing,
        ...(config.upstream.weights !== undefined ? { weights: config.upstream.weights } : {}),
        affinityBound: config.upstream.affinity_load_bound,
        metrics,
      }),
    close: (pool) => pool.close(),
  });
  // Probed actively only where there is a choice to make: one replica is served whatever its health says.
  const interval = config.upstream.health_check_interval_ms;
  await node.start({
    name: 'upstream health checks',
    start: async () => {
      if (urls.length < 2 || interval === 0) return undefined;
      const checks = new HealthChecks(pool.replicas, {
        flavor,
        intervalMs: interval,
        target: { apiKey: upstreamApiKey, timeoutMs: UPSTREAM_PROBE_MS },
        log,
        ...(config.upstream.load_from_metrics ? { load: { kvCacheFull: config.upstream.kv_cache_full } } : {}),
      });
      await checks.start();
      return checks;
    },
    // /ready: some replica up, as the checks last found it; without them, as a probe of each finds it now.
    ready: (checks) =>
      !config.server.ready_checks_upstream
        ? []
        : checks !== undefined
          ? [
              upstreamCheck(() => {
                if (!checks.anyUp()) throw new Error('no upstream replica passed its last health check');
              }),
            ]
          : [
              upstreamCheck(() =>
                anyReplicaHealthy(urls, flavor, { apiKey: upstreamApiKey, timeoutMs: UPSTREAM_PROBE_MS }),
              ),
            ],
    close: (checks) => checks?.close(),
  });
  const countTokens = countedTokens(counter, metrics);
  const dataDir = dataDirOf(loaded);
  // The store is a check of /ready when the chain uses it (auth, meter): then it is open, and migrated, before the node listens.
  let storeUsed = false;
  const services = await node.start({
    name: 'services',
    start: () =>
      openServices(config, storeOptionsOf(loaded), {
        log,
        ...(primary !== undefined && !hasRedis(config) ? { revocations: new LinkRevocationBus(primary) } : {}),
      }),
    ready: (services) => [
      ...(storeUsed ? [storeCheck(async () => (await services.store()).ping())] : []),
      ...(services.redis() !== undefined ? [redisCheck(() => services.redisConnected())] : []),
    ],
    close: (services) => services.close(),
  });
  const tracing = await node.start({
    name: 'tracing',
    start: () => tracingOf(config, env),
    // The requests' spans have all ended: the last batch goes out (a collector that is down loses it).
    close: (tracing) =>
      tracing?.shutdown().catch((error: unknown) => log.warn({ err: error }, 'the last traces could not be exported')),
  });
  const serverSecret = await node.start({
    name: 'server secret',
    start: () => loadThinkingSecret(dataDir, env),
  });
  const thinkingSigner = new ThinkingSigner(serverSecret);
  // Salts derived from the same secret: every node of a deployment sends an organization the same one.
  const cacheIsolator = new CacheIsolator(upstream.cacheIsolation, serverSecret);
  const plugins = await node.start({
    name: 'plugins',
    start: () =>
      loadPlugins(loaded, builtinPlugins, {
        config,
        modelId: config.model.id,
        dataDir,
        store: () => {
          storeUsed = true;
          return services.store();
        },
        revocations: services.revocations,
        redis: services.redis,
        notifier: services.notifier,
        countTokens,
        metrics,
        now: options.now ?? Date.now,
        ...(primary !== undefined ? { shared: primary } : {}),
      }),
    close: async (plugins) => {
      for (const plugin of plugins) await plugin.close?.();
    },
  });
  const terminal = createChatCall(pool, {
    servedModel: config.model.upstream_name,
    fields: upstreamFields(
      flavor,
      config.upstream.extra_fields,
      config.upstream.thinking_field ?? defaultThinkingField(flavor),
    ),
    maxContextTokens: upstream.usageCeiling,
    forwardHeaders: config.upstream.forward_headers,
    maxEventBytes: config.upstream.max_event_bytes,
    maxBodyBytes: config.upstream.max_body_bytes,
    retryAfterSeconds: Math.ceil(config.upstream.queue_timeout_ms / 1000),
    isolationFields: (exchange) => cacheIsolator.fieldsFor(exchange.locals.caller?.orgId),
    affinityScope: (exchange) => exchange.locals.caller?.orgId,
    trustCachedTokens: cacheIsolator.trustsCachedTokens,
    reasoningTags: config.upstream.reasoning_tags ?? 'auto',
    ...(config.batch.upstream_priority === undefined ? {} : { batchPriority: config.batch.upstream_priority }),
  });
  const dialects = createDialects({
    modelId: config.model.id,
    modelAliases: config.model.aliases,
    contextTokens,
    messagesMaxTokens: config.dialects.messages.max_tokens,
    messagesMaxTokensOverLimit: config.dialects.messages.max_tokens_over_limit,
    responsesFunctionTools: config.dialects.responses.function_tools,
  });
  // The node's own routes (models, probes) answer in the chat dialect's shape (spec section 7); the batch
  // APIs' answer in their family's.
  const router = new Router(
    Object.values(dialects),
    dialects.chat,
    config.batch.enabled && storeUsed ? BATCH_ROUTES : [],
  );
  const connectionCap = new ConnectionCap(config.server.max_connections);
  const chain = composeChain(plugins, terminal);
  const inFlight = new InFlight();
  const readiness = new Readiness(node.readinessChecks(), {
    cacheMs: READY_CACHE_MS,
    timeoutMs: READY_TIMEOUT_MS,
    draining: () => inFlight.draining,
    ...(options.now ? { now: options.now } : {}),
  });
  // Batches belong to organizations: they are served where the chain knows its callers, from the store (auth).
  const batches =
    config.batch.enabled && storeUsed
      ? await batchService({
          config: config.batch,
          dataDir,
          store: () => services.store(),
          runtime: () => runtime,
          router,
          servesModel: (model) => model === config.model.id || config.model.aliases.includes(model),
          // A line starts only while each replica has a free connection: no live request waits behind a line.
          upstreamFree: () => pool.replicas.every((replica) => replica.inFlight < upstream.connections),
          upstreamCalls: () => pool.replicas.reduce((calls, replica) => calls + replica.inFlight, 0),
          wire: config.wire === 'auto' ? 'openai' : config.wire,
          log,
          metrics: metrics?.batch,
          ...(options.now ? { now: options.now } : {}),
        })
      : undefined;
  // What every door's exchanges share (proxy/exchange/run.ts): HTTP requests, WebSocket messages, batch lines.
  const runtime: ExchangeRuntime = {
    chain,
    log,
    metrics,
    tracing,
    thinkingSigner,
    readiness,
    countTokens,
    callerCaps: capabilityOf(plugins, 'meter.callerCaps'),
    resources: batches?.api,
    models: modelCatalogue({
      id: config.model.id,
      aliases: config.model.aliases,
      displayName: config.model.display_name,
      ownedBy: config.model.owned_by,
      created: config.model.created,
      contextTokens,
      maxTokens: Math.min(config.dialects.messages.max_tokens, contextTokens),
    }),
  };
  const listener = createRequestListener({
    ...runtime,
    router,
    bodyLimits: {
      maxBytes: config.server.body_limit_bytes,
      maxDepth: config.server.max_json_depth,
      timeout: {
        ms: config.server.body_timeout_ms,
        deadlines: new Deadlines(checkEveryMs(config.server.body_timeout_ms)),
      },
    },
    bodyBudget: new BodyBudget(config.server.bodies_in_flight_bytes),
    connectionCap,
    configuredWire: config.wire,
    pingIntervalMs: config.server.sse_ping_ms,
    inFlight,
  });
  const server = createHttpServer(listener, {
    headersTimeoutMs: config.server.headers_timeout_ms,
    connectionCap,
    errorsFor: (path) => router.errorsFor(path),
    log,
  });
  const sockets = attachSocketMode(server, {
    ...runtime,
    router,
    connectionCap,
    configuredWire: config.wire,
    maxMessageBytes: config.server.body_limit_bytes,
    idleTimeoutMs: config.server.websocket_idle_ms,
    inFlight,
  });
  metrics?.readAtScrape({
    inFlight: () => inFlight.count,
    replicas: () =>
      pool.replicas.map((replica) => ({
        replica: replica.label,
        healthy: replica.healthyAt(Date.now()),
        outstanding: replica.inFlight,
        queued: replica.pool.stats.queued,
      })),
    tokenizerQueue: () => counter.queued(),
  });
  // A worker's series are read by the primary, which serves the node's metrics (bin/workers.ts): prom-client's
  // aggregator answers the primary's requests once one is made in the worker.
  if (metrics !== undefined && primary !== undefined) {
    const { AggregatorRegistry } = await import('prom-client');
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([metrics.registry]);
  }
  // The side listeners start before the gateway's own, so they close after its drain.
  if (metrics !== undefined && config.metrics.port !== undefined && primary === undefined) {
    const { host, port } = config.metrics;
    await node.start({
      name: 'metrics',
      start: () => startMetricsServer(metrics, { host, port }, log),
      url: (server) => server.url,
      close: (server) => server.close(),
    });
    log.info({ url: `${node.urlOf('metrics')}/metrics` }, 'metrics listening');
  }
  if (config.console.port !== undefined) {
    const consoleConfig = config.console;
    await node.start({
      name: 'console',
      start: () =>
        import('../console/server.js').then(({ startConsoleServer }) =>
          startConsoleServer({
            services,
            config: consoleConfig,
            mail: config.mail,
            tiers: tiersOf(config.limits.tiers),
            windowUse: capabilityOf(plugins, 'ratelimit.windowUse'),
            oidcClientSecret: env[consoleConfig.oidc.client_secret_env] || undefined,
            payments: config.payments,
            batches: config.batch.enabled,
            log,
          }),
        ),
      url: (server) => server.url,
      close: (server) => server.close(),
    });
    log.info({ url: node.urlOf('console') }, 'console listening');
  }
  if (adminToken === undefined) {
    log.info(
      { admin: 'off' },
      `admin API and dashboard off: set ${config.admin.token_env} (16+ characters) to run them on ${config.admin.host}:${config.admin.port}`,
    );
  } else {
    await node.start({
      name: 'admin',
      start: () =>
        startAdminServer({
          services,
          config: config.admin,
          token: adminToken,
          tiers: tiersOf(config.limits.tiers),
          log,
        }),
      url: (server) => server.url,
      close: (server) => server.close(),
    });
    log.info({ url: node.urlOf('admin') }, 'admin API and dashboard listening');
  }
  const cut = new AbortController();
  // How the node stops sets how long its drain may take: a drain's timeout, or none for a close.
  let drainMs = 0;
  let unsettled = 0;
  await node.start({
    name: 'gateway',
    start: async () => {
      await listen(server, config.server.port, config.server.host);
      return server;
    },
    url: urlOf,
    close: async (server) => {
      unsettled = await drainNode(
        {
          server,
          inFlight,
          sockets,
          cutUpstream: () =>
            pool.cut(
              new GatewayError('GW_ERR_SERVER_SHUTTING_DOWN', 'This gateway node is shutting down; retry the request.'),
            ),
          log,
        },
        { timeoutMs: drainMs, cut: cut.signal },
      );
    },
  });
  if (batches !== undefined)
    // After the gateway listens, so it stops first: it takes no more lines and lets the running ones end.
    await node.start({
      name: 'batch worker',
      start: () => {
        batches.worker.start();
        return Promise.resolve(batches.worker);
      },
      close: (worker) => worker.stop(),
    });
  let stopping: Promise<void> | undefined;
  /** Drains, then closes the parts in the reverse of their start order. */
  const stop = (timeoutMs: number): Promise<void> => {
    stopping ??= (async () => {
      drainMs = timeoutMs;
      await node.close();
      if (unsettled > 0) throw new Error(`${unsettled} requests did not end before the gateway stopped`);
    })();
    return stopping;
  };
  const optionalUrl = (field: string, name: string): Record<string, string> => {
    const url = node.urlOf(name);
    return url === undefined ? {} : { [field]: url };
  };
  return {
    url: node.urlOf('gateway')!,
    upstreamUrls: urls,
    ...optionalUrl('adminUrl', 'admin'),
    ...optionalUrl('consoleUrl', 'console'),
    ...optionalUrl('metricsUrl', 'metrics'),
    log,
    close: () => {
      // A drain under way is cut short; otherwise this is a drain with no time to finish.
      if (stopping !== undefined) cut.abort();
      return stop(0);
    },
    drain: () => stop(config.server.drain_timeout_ms),
    cutDrain: () => cut.abort(),
  };
}

/** The tracer when `tracing.otlp_url` is set; the SDK's OTEL_BSP_SCHEDULE_DELAY sets how long spans wait for their batch. */
async function tracingOf(config: GatewayConfig, env: NodeJS.ProcessEnv): Promise<GatewayTracing | undefined> {
  const url = config.tracing.otlp_url;
  if (url === undefined) return undefined;
  const { GatewayTracing } = await import('../telemetry/tracing.js');
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  return new GatewayTracing({
    url,
    serviceName: config.tracing.service_name,
    version: packageVersion(),
    sampleRatio: config.tracing.sample_ratio,
    modelId: config.model.id,
    ...(env.OTEL_BSP_SCHEDULE_DELAY !== undefined && Number.isInteger(delay) && delay >= 0
      ? { exportDelayMs: delay }
      : {}),
  });
}
