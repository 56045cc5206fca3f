import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ErrorObject } from 'ajv';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { ajv } from '../validation/ajv.js';
import { paramOf } from '../validation/field-path.js';
import { ConfigError } from './errors.js';
import { packageRoot } from './package-root.js';
import { configSchema } from './schema.js';
import type { GatewayConfig } from './types.js';

export type ConfigPath = ReadonlyArray<string | number>;

export interface LoadedConfig {
  config: GatewayConfig;
  /** The folder paths in the config are relative to (the config file's, or the working directory). */
  baseDir: string;
  /** Where a key was set, for error messages: `file:line`, or `environment`/`defaults`. */
  locate(path: ConfigPath): string;
}

interface Source {
  file: string;
  doc: Document;
  lines: LineCounter;
}

const validateConfig = ajv.compile(configSchema);

/** The embedded defaults, then the config file over them, then GATEWAY_* variables over both; validated. */
export function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const sources = [readSource(join(packageRoot(), 'config', 'default.yaml'))];
  if (file !== undefined) sources.unshift(readSource(resolve(file)));
  const merged = sources.reduceRight<Record<string, unknown>>(
    (config, source) => mergeOver(config, source.doc.toJS() ?? {}),
    {},
  );
  const fromEnv = applyEnvironment(merged, env);
  const locate = (path: ConfigPath): string => {
    for (let length = path.length; length > 0; length--) {
      const variable = fromEnv.get(path.slice(0, length).join('.'));
      if (variable !== undefined) return `environment ${variable}`;
    }
    for (const source of sources) {
      const node = source.doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return `${source.file}:${source.lines.linePos(node.range[0]).line}`;
    }
    return sources[0]!.file;
  };
  if (!validateConfig(merged)) throw new ConfigError(describe(validateConfig.errors?.[0], locate));
  const { id, aliases } = merged.model;
  if (aliases.includes(id))
    throw new ConfigError(
      `${locate(['model', 'aliases'])}: key 'model.aliases' names '${id}', which is model.id itself`,
    );
  checkRedis(merged.redis, locate);
  if (merged.server.bodies_in_flight_bytes < merged.server.body_limit_bytes)
    throw new ConfigError(
      `${locate(['server', 'bodies_in_flight_bytes'])}: key 'server.bodies_in_flight_bytes' is below server.body_limit_bytes: one body as large as allowed could never be read`,
    );
  const weights = merged.upstream.weights;
  if (weights !== undefined && weights.length !== merged.upstream.urls.length)
    throw new ConfigError(
      `${locate(['upstream', 'weights'])}: key 'upstream.weights' gives ${weights.length} weight(s) for ${merged.upstream.urls.length} URL(s) in upstream.urls: give one per URL, in the same order`,
    );
  return { config: merged, baseDir: file === undefined ? process.cwd() : dirname(resolve(file)), locate };
}

/** One Redis server or one Redis Cluster; a cluster's masters all speak TLS or none do. */
function checkRedis(redis: GatewayConfig['redis'], locate: (path: ConfigPath) => string): void {
  if (redis.url !== undefined && redis.cluster !== undefined)
    throw new ConfigError(
      `${locate(['redis', 'url'])}: key 'redis.url' and ${locate(['redis', 'cluster'])}: key 'redis.cluster' are both set: give one Redis server or the seeds of one Redis Cluster`,
    );
  const schemes = new Set(redis.cluster?.map((url) => url.slice(0, url.indexOf(':'))));
  if (schemes.size > 1)
    throw new ConfigError(
      `${locate(['redis', 'cluster'])}: key 'redis.cluster' mixes redis:// and rediss:// seeds: the masters use TLS or not, all alike`,
    );
}

function readSource(file: string): Source {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`${file}: cannot read the config file`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem) {
    const line = problem.linePos?.[0]?.line ?? lines.linePos(problem.pos[0]).line;
    throw new ConfigError(`${file}:${line}: invalid YAML: ${problem.message.split('\n')[0]}`);
  }
  return { file, doc, lines };
}

/** Objects merge key by key; anything else (arrays included) from `over` replaces. */
function mergeOver(base: Record<string, unknown>, over: unknown): Record<string, unknown> {
  if (!isRecord(over)) return base;
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = result[key];
    result[key] = isRecord(current) && isRecord(value) ? mergeOver(current, value) : value;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The GATEWAY_* overrides; returns which config keys they set, for error messages. */
function applyEnvironment(config: Record<string, unknown>, env: NodeJS.ProcessEnv): Map<string, string> {
  const set = new Map<string, string>();
  const assign = (variable: string, path: [string, ...string[]], value: unknown): void => {
    let section = config;
    for (const key of path.slice(0, -1)) {
      const inner = isRecord(section[key]) ? (section[key] as Record<string, unknown>) : {};
      section[key] = inner;
      section = inner;
    }
    section[path[path.length - 1]!] = value;
    set.set(path.join('.'), variable);
  };
  const integer = (variable: string, text: string): number => {
    if (!/^\d+$/.test(text)) throw new ConfigError(`environment ${variable}: '${text}' is not a whole number`);
    return Number(text);
  };
  if (env.GATEWAY_HOST) assign('GATEWAY_HOST', ['server', 'host'], env.GATEWAY_HOST);
  if (env.GATEWAY_PORT) assign('GATEWAY_PORT', ['server', 'port'], integer('GATEWAY_PORT', env.GATEWAY_PORT));
  if (env.GATEWAY_DRAIN_TIMEOUT_MS)
    assign(
      'GATEWAY_DRAIN_TIMEOUT_MS',
      ['server', 'drain_timeout_ms'],
      integer('GATEWAY_DRAIN_TIMEOUT_MS', env.GATEWAY_DRAIN_TIMEOUT_MS),
    );
  if (env.GATEWAY_WORKERS)
    assign(
      'GATEWAY_WORKERS',
      ['server', 'workers'],
      env.GATEWAY_WORKERS === 'auto' ? 'auto' : integer('GATEWAY_WORKERS', env.GATEWAY_WORKERS),
    );
  if (env.GATEWAY_UPSTREAM_URL)
    assign(
      'GATEWAY_UPSTREAM_URL',
      ['upstream', 'urls'],
      env.GATEWAY_UPSTREAM_URL.split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    );
  if (env.GATEWAY_MODEL_ID) assign('GATEWAY_MODEL_ID', ['model', 'id'], env.GATEWAY_MODEL_ID);
  if (env.GATEWAY_UPSTREAM_MODEL)
    assign('GATEWAY_UPSTREAM_MODEL', ['model', 'upstream_name'], env.GATEWAY_UPSTREAM_MODEL);
  if (env.GATEWAY_LOG_LEVEL) assign('GATEWAY_LOG_LEVEL', ['log', 'level'], env.GATEWAY_LOG_LEVEL);
  if (env.GATEWAY_SIM_FLAVOR) assign('GATEWAY_SIM_FLAVOR', ['sim', 'flavor'], env.GATEWAY_SIM_FLAVOR);
  if (env.GATEWAY_SIM_PREFILL_US_PER_TOKEN)
    assign(
      'GATEWAY_SIM_PREFILL_US_PER_TOKEN',
      ['sim', 'prefill_us_per_token'],
      integer('GATEWAY_SIM_PREFILL_US_PER_TOKEN', env.GATEWAY_SIM_PREFILL_US_PER_TOKEN),
    );
  if (env.GATEWAY_DATA_DIR) assign('GATEWAY_DATA_DIR', ['data_dir'], env.GATEWAY_DATA_DIR);
  if (env.GATEWAY_DATABASE_URL) assign('GATEWAY_DATABASE_URL', ['store', 'url'], env.GATEWAY_DATABASE_URL);
  if (env.GATEWAY_REDIS_URL) assign('GATEWAY_REDIS_URL', ['redis', 'url'], env.GATEWAY_REDIS_URL);
  if (env.GATEWAY_REDIS_CLUSTER)
    assign(
      'GATEWAY_REDIS_CLUSTER',
      ['redis', 'cluster'],
      env.GATEWAY_REDIS_CLUSTER.split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    );
  if (env.GATEWAY_SMTP_URL) assign('GATEWAY_SMTP_URL', ['mail', 'url'], env.GATEWAY_SMTP_URL);
  if (env.GATEWAY_STRIPE_SECRET_KEY)
    assign('GATEWAY_STRIPE_SECRET_KEY', ['payments', 'stripe', 'secret_key'], env.GATEWAY_STRIPE_SECRET_KEY);
  if (env.GATEWAY_STRIPE_WEBHOOK_SECRET)
    assign(
      'GATEWAY_STRIPE_WEBHOOK_SECRET',
      ['payments', 'stripe', 'webhook_secret'],
      env.GATEWAY_STRIPE_WEBHOOK_SECRET,
    );
  if (env.GATEWAY_STRIPE_API_URL)
    assign('GATEWAY_STRIPE_API_URL', ['payments', 'stripe', 'api_url'], env.GATEWAY_STRIPE_API_URL);
  if (env.GATEWAY_METRICS_HOST) assign('GATEWAY_METRICS_HOST', ['metrics', 'host'], env.GATEWAY_METRICS_HOST);
  if (env.GATEWAY_METRICS_PORT)
    assign('GATEWAY_METRICS_PORT', ['metrics', 'port'], integer('GATEWAY_METRICS_PORT', env.GATEWAY_METRICS_PORT));
  if (env.GATEWAY_OTLP_URL) assign('GATEWAY_OTLP_URL', ['tracing', 'otlp_url'], env.GATEWAY_OTLP_URL);
  if (env.GATEWAY_CONSOLE_HOST) assign('GATEWAY_CONSOLE_HOST', ['console', 'host'], env.GATEWAY_CONSOLE_HOST);
  if (env.GATEWAY_CONSOLE_PORT)
    assign('GATEWAY_CONSOLE_PORT', ['console', 'port'], integer('GATEWAY_CONSOLE_PORT', env.GATEWAY_CONSOLE_PORT));
  if (env.GATEWAY_CONSOLE_URL) assign('GATEWAY_CONSOLE_URL', ['console', 'public_url'], env.GATEWAY_CONSOLE_URL);
  if (env.GATEWAY_OIDC_ISSUER) assign('GATEWAY_OIDC_ISSUER', ['console', 'oidc', 'issuer'], env.GATEWAY_OIDC_ISSUER);
  if (env.GATEWAY_OIDC_CLIENT_ID)
    assign('GATEWAY_OIDC_CLIENT_ID', ['console', 'oidc', 'client_id'], env.GATEWAY_OIDC_CLIENT_ID);
  if (env.GATEWAY_ADMIN_HOST) assign('GATEWAY_ADMIN_HOST', ['admin', 'host'], env.GATEWAY_ADMIN_HOST);
  if (env.GATEWAY_ADMIN_PORT)
    assign('GATEWAY_ADMIN_PORT', ['admin', 'port'], integer('GATEWAY_ADMIN_PORT', env.GATEWAY_ADMIN_PORT));
  return set;
}

function describe(error: ErrorObject | undefined, locate: (path: ConfigPath) => string): string {
  if (error === undefined) return 'the config is invalid';
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    return `${locate([...path, key])}: unknown key '${paramOf(error.instancePath, key)}'`;
  }
  if (error.keyword === 'required') {
    return `${locate(path)}: missing key '${paramOf(error.instancePath, String(params.missingProperty))}'`;
  }
  const allowed = error.keyword === 'enum' ? ` (${(params.allowedValues as unknown[]).join(', ')})` : '';
  return `${locate(path)}: key '${paramOf(error.instancePath) || '(root)'}' ${error.message ?? 'is invalid'}${allowed}`;
}
