// The servers the load is sent to, each its own process: the sim itself, nginx, two bare Node proxies, three gateways
// and Portkey. The plain gateway (no plugins) is three targets: one process, one path per dialect (chat completions,
// messages, responses). The full-chain gateways (the default plugin chain; rate-limit counters in process, or in
// Redis) are one process each, chat path. nginx and Portkey run only when installed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { loadConfig } from '../config/load.js';
import type { PluginEntry } from '../config/types.js';
import { openStore, type Store } from '../store/store.js';
import { findNginx, startNginx } from './nginx.js';
import { findPortkey, portkeyHeaders, startPortkey } from './portkey.js';
import { freePort, startServer, type Launch, type ServerProcess } from './processes.js';
import { findPostgres, startPostgres, type BenchPostgres } from './postgres.js';
import { redisServerVersion, startRedis, type BenchRedis } from './redis.js';
import { DIALECT_PATHS, requestBody, requestHeaders, scenarioNamed, SIM_HEADER_NAMES } from './scenarios.js';
import type { DialectName } from '../dialects/registry.js';

export type TargetName =
  | 'direct'
  | 'nginx'
  | 'http-proxy-3'
  | 'undici'
  | 'gateway'
  | 'gateway-messages'
  | 'gateway-responses'
  | 'gateway-full'
  | 'gateway-full-metrics'
  | 'gateway-full-traced'
  | 'gateway-full-redis'
  | 'gateway-full-pg'
  | 'gateway-full-workers'
  | 'portkey';

/** Every target, in the order of the report. */
export const TARGET_NAMES: readonly TargetName[] = [
  'direct',
  'nginx',
  'http-proxy-3',
  'undici',
  'gateway',
  'gateway-messages',
  'gateway-responses',
  'gateway-full',
  'gateway-full-metrics',
  'gateway-full-traced',
  'gateway-full-redis',
  'gateway-full-pg',
  'gateway-full-workers',
  'portkey',
];

/** The targets whose process is not a Node program (no CPU profile). */
const NOT_NODE: ReadonlySet<TargetName> = new Set(['nginx']);

export interface Target {
  name: TargetName;
  /** The model name this target expects in the request body. */
  model: string;
  /** The dialect of the requests, hence their path and body; only the gateway speaks more than `chat`. */
  dialect: DialectName;
  /** The process whose CPU and memory are measured (for `direct`, the sim itself; the three plain gateway targets share one). */
  server: ServerProcess;
  /** Headers of this target's own, over the scenario's (the full chain's API key). */
  headers?: Readonly<Record<string, string>>;
  /** The processes the target's work also runs in, measured beside it (redis-server; PostgreSQL for gateway-full-pg). */
  services?: readonly ServerProcess[];
  /** The full chain's store, to check the metering in. */
  store?: BenchStore;
  /** The full chain's plugins, in order. */
  chain?: readonly string[];
  /** GET /metrics of a target with metrics on. */
  metricsUrl?: string;
}

export interface Targets {
  sim: ServerProcess;
  list: Target[];
  /** Every process the bench started (each once): their CPU time is the bench's own, not another process's. */
  processes: ServerProcess[];
  /** Why a target was left out (its path not served yet, redis-server missing), to print. */
  notes: string[];
  /** Each process's resident memory once all were listening, before any request, MB (by process name). */
  idleRssMb: Record<string, number>;
}

/** A CPU profile of one target's process: node's --cpu-prof, written into `dir` when the process exits. */
export interface ProfileRequest {
  target: TargetName;
  dir: string;
}

export const TARGET_ABOUT: Record<TargetName, string> = {
  direct: "the sim itself, no proxy (its CPU is the sim's)",
  nginx: 'nginx, one process (master_process off), keep-alive upstream, proxy_buffering off: the practical limit',
  'http-proxy-3': 'bare http-proxy-3 pass-through (bench/bare-http-proxy.ts)',
  undici: 'bare undici Pool pass-through (bench/bare-undici.ts)',
  gateway: 'the gateway, chat path (POST /v1/chat/completions), no plugins, log level info',
  'gateway-messages': 'the same gateway process, message dialect (POST /v1/messages)',
  'gateway-responses': 'the same gateway process, responses dialect (POST /v1/responses)',
  'gateway-full':
    'a gateway with the default plugin chain (auth, ratelimit, meter, promptcache, search; in-process counters), chat path, log level info',
  'gateway-full-metrics':
    'gateway-full with Prometheus metrics on (GATEWAY_METRICS_PORT; not scraped during the run: a scrape is measured apart)',
  'gateway-full-traced':
    'gateway-full with metrics and OpenTelemetry traces on, every request sampled, exported over OTLP/HTTP to a sink the bench runs (its CPU shown apart)',
  'gateway-full-redis':
    'the same chain with GATEWAY_REDIS_URL: rate-limit counters in a redis-server the bench runs (its CPU shown apart)',
  'gateway-full-pg':
    'the same chain as a fleet node: GATEWAY_DATABASE_URL (PostgreSQL) and GATEWAY_REDIS_URL, both run by the bench (their CPU shown apart)',
  'gateway-full-workers':
    'the default chain as a node of two workers (server.workers: 2), counters in its primary; CPU of the primary and both workers',
  portkey:
    "Portkey's gateway (@portkey-ai/gateway, BENCH_PORTKEY_DIR), openai provider with the sim as custom host, chat path",
};

/** The name of the process that serves a target (the plain gateway's three paths are one process). */
export function processOf(target: TargetName): string {
  if (target === 'direct') return 'sim';
  return target === 'gateway-messages' || target === 'gateway-responses' ? 'gateway' : target;
}

/** Why a target cannot be profiled (not a Node program), or undefined when it can. */
export function unprofilable(target: TargetName): string | undefined {
  return NOT_NODE.has(target) ? `${target} is not a Node program: no --cpu-prof` : undefined;
}

/** The URL a target's requests go to. */
export function targetUrl(target: Target): string {
  return target.server.url + DIALECT_PATHS[target.dialect];
}

/** The target names in `BENCH_TARGETS` (comma-separated; empty or unset: all), in the report's order, with `direct` always. */
export function selectTargets(value: string | undefined): Set<TargetName> {
  if (value === undefined || value.trim() === '') return new Set(TARGET_NAMES);
  const asked = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = asked.filter((name) => !isTargetName(name));
  if (unknown.length > 0)
    throw new Error(
      `BENCH_TARGETS: unknown target(s) ${unknown.join(', ')}; the targets are ${TARGET_NAMES.join(', ')}`,
    );
  return new Set(TARGET_NAMES.filter((name) => name === 'direct' || asked.includes(name)));
}

export function isTargetName(name: string): name is TargetName {
  return (TARGET_NAMES as readonly string[]).includes(name);
}

const UPSTREAM_MODEL = 'Qwen/Qwen3-8B';
export const GATEWAY_MODEL = 'qwen3-8b';
const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const GATEWAY_BIN = join(BENCH_DIR, '..', 'bin', 'gateway.js');
/** The full chain's organization: credits far beyond what a run spends (a request costs ~0.00002 credits). */
const BENCH_ORG = 'bench';
const BENCH_CREDITS_MICROS = 1_000_000 * 1_000_000;
/** Per minute, for every counter of the one tier: far above what 2 cores can send, so no 429 interferes. */
const UNREACHABLE_PER_MINUTE = 1_000_000_000;
/** How long a profiled process may take to write its CPU profile after SIGTERM. */
const PROFILE_WRITE_MS = 60_000;
/** The default plugin chain (config/default.yaml), entries as written there, options included. */
const DEFAULT_CHAIN: readonly PluginEntry[] = loadConfig(undefined, {}).config.plugins;
/** The plugins of the full-chain gateways, in order: the default chain's (BENCH_FULL_CHAIN overrides it). */
export const FULL_CHAIN_PLUGINS: readonly string[] = DEFAULT_CHAIN.flatMap((entry) =>
  entry.name !== undefined ? [entry.name] : [],
);

/**
 * Starts the sim, then the servers in front of it that `only` needs. `gatewayLog`: a file for the gateways' logs (else
 * /dev/null). The gateway's messages and responses paths are probed once: one that answers 404 (not served yet) is left
 * out, with a note; so are gateway-full-redis without a redis-server, nginx without nginx, and portkey without
 * `portkeyDir` (BENCH_PORTKEY_DIR). `profile`: that target's process runs under node's CPU profiler.
 */
export async function startTargets(options: {
  gatewayLog?: string;
  only?: ReadonlySet<TargetName>;
  fullChain?: readonly string[];
  portkeyDir?: string;
  profile?: ProfileRequest;
}): Promise<Targets> {
  const only = options.only ?? new Set(TARGET_NAMES);
  const chain = options.fullChain ?? FULL_CHAIN_PLUGINS;
  const profile = options.profile;
  /** The profiled process runs under the CPU profiler, and gets time to write its profile as it exits. */
  const launch = (process: string): Launch =>
    profile !== undefined && process === processOf(profile.target)
      ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profile.dir], stopGraceMs: PROFILE_WRITE_MS }
      : { nodeArgs: [] };
  const simPort = await freePort();
  const sim = await startServer({
    name: 'sim',
    args: [...launch('sim').nodeArgs, GATEWAY_BIN, 'sim', '--host', '127.0.0.1', '--port', String(simPort)],
    port: simPort,
    stopGraceMs: launch('sim').stopGraceMs,
  });
  const notes: string[] = [];
  const needsRedis = only.has('gateway-full-redis') || only.has('gateway-full-pg');
  const redisVersion = needsRedis ? redisServerVersion() : undefined;
  if (needsRedis && redisVersion === undefined)
    notes.push(
      'gateway-full-redis and gateway-full-pg skipped: no redis-server on the PATH (apt-get install redis-server)',
    );
  const postgresBin = only.has('gateway-full-pg') ? findPostgres() : undefined;
  if (only.has('gateway-full-pg') && postgresBin === undefined)
    notes.push('gateway-full-pg skipped: no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)');
  const nginx = only.has('nginx') ? findNginx() : undefined;
  if (only.has('nginx') && nginx === undefined)
    notes.push('nginx skipped: no nginx on the PATH nor at /usr/sbin/nginx (apt-get install nginx-light)');
  const portkey = only.has('portkey') && options.portkeyDir !== undefined ? findPortkey(options.portkeyDir) : undefined;
  if (only.has('portkey') && portkey === undefined)
    notes.push(
      options.portkeyDir === undefined
        ? 'portkey skipped: BENCH_PORTKEY_DIR is not set (bench/README.md says how to install Portkey under /tmp)'
        : `portkey skipped: no @portkey-ai/gateway build in ${options.portkeyDir}`,
    );
  const redis = redisVersion !== undefined ? await startRedis() : undefined;
  const postgres = postgresBin !== undefined && redis !== undefined ? await startPostgres(postgresBin) : undefined;
  const plainGateway = only.has('gateway') || only.has('gateway-messages') || only.has('gateway-responses');
  const otlpSink = only.has('gateway-full-traced') ? await startOtlpSink(launch('otlp-sink')) : undefined;
  const [
    nginxServer,
    httpProxy,
    undici,
    gateway,
    full,
    fullMetrics,
    fullTraced,
    fullRedis,
    fullPostgres,
    fullWorkers,
    portkeyServer,
  ] = await Promise.all([
    nginx !== undefined ? startNginx(nginx, sim.url) : undefined,
    only.has('http-proxy-3')
      ? startBare('http-proxy-3', 'bare-http-proxy.js', sim.url, launch('http-proxy-3'))
      : undefined,
    only.has('undici') ? startBare('undici', 'bare-undici.js', sim.url, launch('undici')) : undefined,
    plainGateway ? startGateway('gateway', sim.url, options.gatewayLog, launch('gateway')) : undefined,
    only.has('gateway-full')
      ? startFullGateway('gateway-full', chain, sim.url, options.gatewayLog, launch('gateway-full'))
      : undefined,
    only.has('gateway-full-metrics')
      ? startFullGateway('gateway-full-metrics', chain, sim.url, options.gatewayLog, launch('gateway-full-metrics'), {
          telemetry: { metricsPort: await freePort() },
        })
      : undefined,
    otlpSink !== undefined
      ? startFullGateway('gateway-full-traced', chain, sim.url, options.gatewayLog, launch('gateway-full-traced'), {
          telemetry: { metricsPort: await freePort(), otlpSink },
        })
      : undefined,
    redis !== undefined && only.has('gateway-full-redis')
      ? startFullGateway('gateway-full-redis', chain, sim.url, options.gatewayLog, launch('gateway-full-redis'), {
          redis,
        })
      : undefined,
    redis !== undefined && postgres !== undefined
      ? startFullGateway('gateway-full-pg', chain, sim.url, options.gatewayLog, launch('gateway-full-pg'), {
          redis,
          postgres,
        })
      : undefined,
    only.has('gateway-full-workers')
      ? startFullGateway('gateway-full-workers', chain, sim.url, options.gatewayLog, launch('gateway-full-workers'), {
          workers: 2,
        })
      : undefined,
    portkey !== undefined ? startPortkey(portkey, launch('portkey')) : undefined,
  ]);
  const processes = [
    sim,
    nginxServer,
    httpProxy,
    undici,
    gateway,
    full?.server,
    fullMetrics?.server,
    fullTraced?.server,
    otlpSink,
    fullRedis?.server,
    fullPostgres?.server,
    fullWorkers?.server,
    portkeyServer,
    redis?.process,
    postgres?.process,
  ].filter((server): server is ServerProcess => server !== undefined);
  // Before the first request (the probes below): what each process holds just for having started.
  const idleRssMb = Object.fromEntries(processes.map((server) => [server.name, server.rssMb()]));
  if (nginx !== undefined) notes.push(`nginx: ${nginx.version} (${nginx.path})`);
  if (portkey !== undefined) notes.push(`portkey: @portkey-ai/gateway ${portkey.version} (${portkey.script})`);

  const list: Target[] = [{ name: 'direct', model: UPSTREAM_MODEL, dialect: 'chat', server: sim }];
  if (nginxServer !== undefined)
    list.push({ name: 'nginx', model: UPSTREAM_MODEL, dialect: 'chat', server: nginxServer });
  if (httpProxy !== undefined)
    list.push({ name: 'http-proxy-3', model: UPSTREAM_MODEL, dialect: 'chat', server: httpProxy });
  if (undici !== undefined) list.push({ name: 'undici', model: UPSTREAM_MODEL, dialect: 'chat', server: undici });
  if (gateway !== undefined) {
    if (only.has('gateway')) list.push({ name: 'gateway', model: GATEWAY_MODEL, dialect: 'chat', server: gateway });
    const others: Array<[TargetName, DialectName]> = [
      ['gateway-messages', 'messages'],
      ['gateway-responses', 'responses'],
    ];
    for (const [name, dialect] of others) {
      if (!only.has(name)) continue;
      const target: Target = { name, model: GATEWAY_MODEL, dialect, server: gateway };
      const probe = await probeTarget(target);
      if (probe.status === 404)
        notes.push(
          `${name} skipped: POST ${DIALECT_PATHS[dialect]} answered 404 (${probe.text.slice(0, 160)}); it is measured once the gateway serves it`,
        );
      else list.push(target);
    }
  }
  for (const started of [full, fullMetrics, fullTraced, fullRedis, fullPostgres, fullWorkers]) {
    if (started === undefined) continue;
    const target: Target = {
      name: started.name,
      model: GATEWAY_MODEL,
      dialect: 'chat',
      server: started.server,
      headers: started.headers,
      store: started.store,
      chain,
    };
    if (started.services.length > 0) target.services = started.services;
    if (started.metricsUrl !== undefined) target.metricsUrl = started.metricsUrl;
    const probe = await probeTarget(target);
    if (probe.status !== 200)
      notes.push(
        `${started.name}: a first request answered ${probe.status} (${probe.text.slice(0, 200)}); the checks below show whether the run means anything`,
      );
    list.push(target);
  }
  if (portkeyServer !== undefined)
    list.push({
      name: 'portkey',
      model: UPSTREAM_MODEL,
      dialect: 'chat',
      server: portkeyServer,
      headers: portkeyHeaders(sim.url),
    });
  return { sim, list, processes, notes, idleRssMb };
}

/** One small non-streamed request, to learn whether the path is served at all. */
async function probeTarget(target: Target): Promise<{ status: number; text: string }> {
  const scenario = scenarioNamed('nonstream');
  const response = await request(targetUrl(target), {
    method: 'POST',
    headers: requestHeaders(scenario, target.headers),
    body: requestBody(target.dialect, scenario, target.model, 2),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

async function startBare(name: TargetName, script: string, upstream: string, launch: Launch): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name,
    args: [...launch.nodeArgs, join(BENCH_DIR, script), '--port', String(port), '--target', upstream],
    port,
    stopGraceMs: launch.stopGraceMs,
  });
}

/** The traced gateway's collector (bench/otlp-sink.ts). */
async function startOtlpSink(launch: Launch): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name: 'otlp-sink',
    args: [...launch.nodeArgs, join(BENCH_DIR, 'otlp-sink.js'), '--port', String(port)],
    port,
    stopGraceMs: launch.stopGraceMs,
  });
}

/**
 * The config both kinds of gateway share: the sim's headers forwarded, log level info; then `rest` (YAML). `upstream`:
 * more keys of the `upstream:` section, each an indented YAML line.
 */
function gatewayConfig(rest: string, upstream = ''): string {
  return `# written by bench/targets.ts\nupstream:\n  forward_headers: [${SIM_HEADER_NAMES.join(', ')}]\n${upstream}log:\n  level: info\n${rest}`;
}

/** `config.env` over the common environment: port, upstream, log level, data directory. */
async function startGateway(
  name: string,
  upstream: string,
  logFile: string | undefined,
  launch: Launch,
  config?: { text: string; dir: string; env?: NodeJS.ProcessEnv; tree?: boolean },
): Promise<ServerProcess> {
  const port = await freePort();
  const dir = config?.dir ?? mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const file = join(dir, 'gateway.yaml');
  // The plain gateway is the proxy path alone: no plugins.
  writeFileSync(file, config?.text ?? gatewayConfig('plugins: []\n'));
  return startServer({
    name,
    args: [...launch.nodeArgs, GATEWAY_BIN, 'start', '--config', file],
    env: {
      GATEWAY_PORT: String(port),
      GATEWAY_UPSTREAM_URL: `${upstream}/v1`,
      GATEWAY_LOG_LEVEL: 'info',
      GATEWAY_DATA_DIR: dir,
      GATEWAY_REDIS_URL: '',
      // One process, whose CPU the bench reads; the workers' target sets its own.
      GATEWAY_WORKERS: '1',
      ...config?.env,
    },
    port,
    ...(logFile !== undefined ? { stdoutFile: logFile } : {}),
    ...(config?.tree === true ? { tree: true } : {}),
    stopGraceMs: launch.stopGraceMs,
  });
}

/** A full chain's store: the SQLite file in its data directory, or the PostgreSQL at `url`. */
export interface BenchStore {
  dataDir: string;
  url?: string;
}

/**
 * What a full chain runs with besides its own process: Redis, and PostgreSQL for its store (else SQLite in its data
 * directory); metrics on a port, and traces exported to the bench's OTLP sink.
 */
interface SharedServices {
  redis?: BenchRedis;
  postgres?: BenchPostgres;
  telemetry?: { metricsPort: number; otlpSink?: ServerProcess };
  /** Worker processes (server.workers); the CPU measured is then the process tree's. */
  workers?: number;
}

interface FullGateway {
  name: TargetName;
  server: ServerProcess;
  headers: Record<string, string>;
  store: BenchStore;
  /** The processes of its shared services, measured beside it. */
  services: ServerProcess[];
  metricsUrl?: string;
}

/**
 * A gateway with the full chain in its own data directory: first an organization with plenty of credits and one API key
 * through the store, then a config with the chain and one rate-limit tier far above the bench's load. With `shared`,
 * its rate-limit counters (and revocation bus, prompt-cache registry) are in that redis-server, and with a PostgreSQL
 * its store is there.
 */
async function startFullGateway(
  name: TargetName,
  chain: readonly string[],
  upstream: string,
  logFile: string | undefined,
  launch: Launch,
  shared?: SharedServices,
): Promise<FullGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-bench-`));
  const benchStore: BenchStore = { dataDir, ...(shared?.postgres !== undefined ? { url: shared.postgres.url } : {}) };
  const key = await createBenchOrg(benchStore);
  const server = await startGateway(name, upstream, logFile, launch, {
    text: fullChainConfig(chain),
    dir: dataDir,
    env: {
      ...(shared?.redis !== undefined ? { GATEWAY_REDIS_URL: shared.redis.url } : {}),
      ...(shared?.postgres !== undefined ? { GATEWAY_DATABASE_URL: shared.postgres.url } : {}),
      ...(shared?.telemetry !== undefined ? { GATEWAY_METRICS_PORT: String(shared.telemetry.metricsPort) } : {}),
      ...(shared?.telemetry?.otlpSink !== undefined
        ? { GATEWAY_OTLP_URL: `${shared.telemetry.otlpSink.url}/v1/traces` }
        : {}),
      ...(shared?.workers !== undefined ? { GATEWAY_WORKERS: String(shared.workers) } : {}),
    },
    ...(shared?.workers !== undefined ? { tree: true } : {}),
  });
  return {
    name,
    server,
    headers: { authorization: `Bearer ${key}` },
    store: benchStore,
    services: [shared?.redis?.process, shared?.postgres?.process, shared?.telemetry?.otlpSink].filter(
      (service): service is ServerProcess => service !== undefined,
    ),
    ...(shared?.telemetry !== undefined
      ? { metricsUrl: `http://127.0.0.1:${shared.telemetry.metricsPort}/metrics` }
      : {}),
  };
}

/** Creates the bench organization, with far more credits than a run spends, and returns its one API key. */
export async function createBenchOrg(benchStore: BenchStore): Promise<string> {
  const store = await openBenchStore(benchStore);
  try {
    await store.orgs.create(BENCH_ORG);
    await store.orgs.addCredits(BENCH_ORG, BENCH_CREDITS_MICROS, 'bench');
    return (await store.keys.create(BENCH_ORG, 'bench')).key;
  } finally {
    await store.close();
  }
}

/**
 * A full chain's config: the plain gateway's, the chain's plugins, and one rate-limit tier far above the bench's load;
 * `upstream`: more lines of its `upstream:` section (`  routing: affinity\n`).
 */
export function fullChainConfig(chain: readonly string[], upstream = ''): string {
  const limit = UNREACHABLE_PER_MINUTE;
  return gatewayConfig(
    pluginsConfig(chain) +
      `limits:\n  tiers:\n    - { name: Bench, from_spend: 0, requests_per_minute: ${limit}, input_tokens_per_minute: ${limit}, output_tokens_per_minute: ${limit} }\n`,
    upstream,
  );
}

/**
 * The `plugins:` of a full-chain config: none for the default chain (the gateway's own default then applies, options and
 * all); else each named plugin with the default chain's options for it (YAML takes JSON).
 */
function pluginsConfig(chain: readonly string[]): string {
  if (chain.join() === FULL_CHAIN_PLUGINS.join()) return '';
  const entries = chain.map((name) => DEFAULT_CHAIN.find((entry) => entry.name === name) ?? { name });
  return `plugins: ${JSON.stringify(entries)}\n`;
}

/** The full chain's organization as the store has it now: what the meter has charged so far. */
export async function benchOrgSpend(benchStore: BenchStore): Promise<{ balanceMicros: number; spentMicros: number }> {
  const store = await openBenchStore(benchStore);
  try {
    const org = await store.orgs.get(BENCH_ORG);
    return { balanceMicros: org.balanceMicros, spentMicros: org.spentMicros };
  } finally {
    await store.close();
  }
}

function openBenchStore(benchStore: BenchStore): Promise<Store> {
  return openStore({
    dataDir: benchStore.dataDir,
    ...(benchStore.url !== undefined ? { postgres: { url: benchStore.url, poolSize: 2, connectTimeoutMs: 5000 } } : {}),
  });
}
