// The servers the load is sent to, each its own process: the sim itself, two bare proxies and the gateway. The gateway
// is three targets: one process, one path per dialect (chat completions, messages, responses).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { freePort, startServer, type ServerProcess } from './processes.js';
import { DIALECT_PATHS, requestBody, requestHeaders, scenarioNamed, SIM_HEADER_NAMES, type Dialect } from './scenarios.js';

export type TargetName = 'direct' | 'http-proxy-3' | 'undici' | 'gateway' | 'gateway-messages' | 'gateway-responses';

export interface Target {
  name: TargetName;
  /** The model name this target expects in the request body. */
  model: string;
  /** The dialect of the requests, hence their path and body; only the gateway speaks more than `chat`. */
  dialect: Dialect;
  /** The process whose CPU and memory are measured (for `direct`, the sim itself; the three gateway targets share one). */
  server: ServerProcess;
}

export interface Targets {
  sim: ServerProcess;
  list: Target[];
  /** Why a target was left out (its path not served yet), to print. */
  notes: string[];
}

export const TARGET_ABOUT: Record<TargetName, string> = {
  direct: 'the sim itself, no proxy (its CPU is the sim\'s)',
  'http-proxy-3': 'bare http-proxy-3 pass-through (bench/bare-http-proxy.ts)',
  undici: 'bare undici Pool pass-through (bench/bare-undici.ts)',
  gateway: 'the gateway, chat path (POST /v1/chat/completions), log level info',
  'gateway-messages': 'the same gateway process, message dialect (POST /v1/messages)',
  'gateway-responses': 'the same gateway process, responses dialect (POST /v1/responses)',
};

/** The URL a target's requests go to. */
export function targetUrl(target: Target): string {
  return target.server.url + DIALECT_PATHS[target.dialect];
}

const UPSTREAM_MODEL = 'Qwen/Qwen3-8B';
const GATEWAY_MODEL = 'qwen3-8b';
const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const GATEWAY_BIN = join(BENCH_DIR, '..', 'bin', 'gateway.js');

/**
 * Starts the sim, then the three servers in front of it. `gatewayLog`: a file for the gateway's logs (else /dev/null).
 * The gateway's messages and responses paths are probed once: one that answers 404 (not served yet) is left out, with a note.
 */
export async function startTargets(options: { gatewayLog?: string }): Promise<Targets> {
  const simPort = await freePort();
  const sim = await startServer({ name: 'sim', args: [GATEWAY_BIN, 'sim', '--host', '127.0.0.1', '--port', String(simPort)], port: simPort });
  const [httpProxy, undici, gateway] = await Promise.all([
    startBare('http-proxy-3', 'bare-http-proxy.js', sim.url),
    startBare('undici', 'bare-undici.js', sim.url),
    startGateway(sim.url, options.gatewayLog),
  ]);
  const list: Target[] = [
    { name: 'direct', model: UPSTREAM_MODEL, dialect: 'chat', server: sim },
    { name: 'http-proxy-3', model: UPSTREAM_MODEL, dialect: 'chat', server: httpProxy },
    { name: 'undici', model: UPSTREAM_MODEL, dialect: 'chat', server: undici },
    { name: 'gateway', model: GATEWAY_MODEL, dialect: 'chat', server: gateway },
  ];
  const notes: string[] = [];
  const others: Array<[TargetName, Dialect]> = [
    ['gateway-messages', 'messages'],
    ['gateway-responses', 'responses'],
  ];
  for (const [name, dialect] of others) {
    const target: Target = { name, model: GATEWAY_MODEL, dialect, server: gateway };
    const probe = await probeTarget(target);
    if (probe.status === 404) notes.push(`${name} skipped: POST ${DIALECT_PATHS[dialect]} answered 404 (${probe.text.slice(0, 160)}); it is measured once the gateway serves it`);
    else list.push(target);
  }
  return { sim, list, notes };
}

/** One small non-streamed request, to learn whether the path is served at all. */
async function probeTarget(target: Target): Promise<{ status: number; text: string }> {
  const scenario = scenarioNamed('nonstream');
  const response = await request(targetUrl(target), { method: 'POST', headers: requestHeaders(scenario), body: requestBody(target.dialect, scenario, target.model, 2) });
  return { status: response.statusCode, text: await response.body.text() };
}

async function startBare(name: TargetName, script: string, upstream: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({ name, args: [join(BENCH_DIR, script), '--port', String(port), '--target', upstream], port });
}

async function startGateway(upstream: string, logFile: string | undefined): Promise<ServerProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const config = join(dir, 'gateway.yaml');
  // The proxy path alone: no plugins (the full chain, auth, rate limits and metering, is benched with issue #6).
  writeFileSync(config, `# written by bench/targets.ts\nupstream:\n  forward_headers: [${SIM_HEADER_NAMES.join(', ')}]\nlog:\n  level: info\nplugins: []\n`);
  return startServer({
    name: 'gateway',
    args: [GATEWAY_BIN, 'start', '--config', config],
    env: { GATEWAY_PORT: String(port), GATEWAY_UPSTREAM_URL: `${upstream}/v1`, GATEWAY_LOG_LEVEL: 'info', GATEWAY_DATA_DIR: dir },
    port,
    ...(logFile !== undefined ? { stdoutFile: logFile } : {}),
  });
}
