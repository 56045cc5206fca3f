// The four servers the load is sent to, each its own process: the sim itself, two bare proxies and the gateway.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startServer, type ServerProcess } from './processes.js';
import { SIM_HEADER_NAMES } from './scenarios.js';

export type TargetName = 'direct' | 'http-proxy-3' | 'undici' | 'gateway';

export interface Target {
  name: TargetName;
  /** The model name this target expects in the request body. */
  model: string;
  /** The process whose CPU and memory are measured (for `direct`, the sim itself). */
  server: ServerProcess;
}

export interface Targets {
  sim: ServerProcess;
  list: Target[];
}

export const TARGET_ABOUT: Record<TargetName, string> = {
  direct: 'the sim itself, no proxy (its CPU is the sim\'s)',
  'http-proxy-3': 'bare http-proxy-3 pass-through (bench/bare-http-proxy.ts)',
  undici: 'bare undici Pool pass-through (bench/bare-undici.ts)',
  gateway: 'the gateway, chat path, log level info',
};

const UPSTREAM_MODEL = 'Qwen/Qwen3-8B';
const GATEWAY_MODEL = 'qwen3-8b';
const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const GATEWAY_BIN = join(BENCH_DIR, '..', 'bin', 'gateway.js');

/** Starts the sim, then the three servers in front of it. `gatewayLog`: a file for the gateway's logs (else /dev/null). */
export async function startTargets(options: { gatewayLog?: string }): Promise<Targets> {
  const simPort = await freePort();
  const sim = await startServer({ name: 'sim', args: [GATEWAY_BIN, 'sim', '--host', '127.0.0.1', '--port', String(simPort)], port: simPort });
  const [httpProxy, undici, gateway] = await Promise.all([
    startBare('http-proxy-3', 'bare-http-proxy.js', sim.url),
    startBare('undici', 'bare-undici.js', sim.url),
    startGateway(sim.url, options.gatewayLog),
  ]);
  return {
    sim,
    list: [
      { name: 'direct', model: UPSTREAM_MODEL, server: sim },
      { name: 'http-proxy-3', model: UPSTREAM_MODEL, server: httpProxy },
      { name: 'undici', model: UPSTREAM_MODEL, server: undici },
      { name: 'gateway', model: GATEWAY_MODEL, server: gateway },
    ],
  };
}

async function startBare(name: TargetName, script: string, upstream: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({ name, args: [join(BENCH_DIR, script), '--port', String(port), '--target', upstream], port });
}

async function startGateway(upstream: string, logFile: string | undefined): Promise<ServerProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, `# written by bench/targets.ts\nupstream:\n  forward_headers: [${SIM_HEADER_NAMES.join(', ')}]\nlog:\n  level: info\n`);
  return startServer({
    name: 'gateway',
    args: [GATEWAY_BIN, 'start', '--config', config],
    env: { GATEWAY_PORT: String(port), GATEWAY_UPSTREAM_URL: `${upstream}/v1`, GATEWAY_LOG_LEVEL: 'info', GATEWAY_DATA_DIR: dir },
    port,
    ...(logFile !== undefined ? { stdoutFile: logFile } : {}),
  });
}
