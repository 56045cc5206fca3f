// Starts a reference upstream and a gateway in front of it, on loopback ephemeral ports.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { dataDirOf } from '../../config/data-dir.js';
import { storeOptionsOf } from '../../services/store-options.js';
import { loadConfig } from '../../config/load.js';
import { startGateway, type RunningGateway } from '../../bin/start-gateway.js';
import { startSim, type RunningSim, type SimOptions } from '../../sim/server.js';
import { openStore, type Store } from '../../store/store.js';

export interface Stack {
  gateway: RunningGateway;
  sim: RunningSim;
  /** The chat SDKs' base URL: the gateway + /v1. */
  baseURL: string;
  /** The log lines the gateway wrote. */
  logs: string[];
  /** The first log entry (parsed) that `matches`, already written or the next one to be: a test awaits it instead of polling. */
  logged(matches: (entry: LogEntry) => boolean): Promise<LogEntry>;
  /** The gateway's data directory (its store). */
  dataDir: string;
  /** The store in that directory, opened on first call (to set up orgs and keys, read the ledger); closed by close(). */
  store(): Promise<Store>;
  close(): Promise<void>;
}

export type LogEntry = Record<string, unknown>;

export interface StackOptions {
  /** YAML merged over the defaults (the upstream URL and the port are set for you; `plugins: []` unless it sets plugins). */
  yaml?: string;
  sim?: SimOptions;
  /** Upstream URLs to use instead of the sim's (e.g. a closed port). */
  upstreamUrls?: string[];
  /** More environment variables for the gateway (e.g. GATEWAY_ADMIN_TOKEN, GATEWAY_ADMIN_PORT=0). */
  env?: Record<string, string>;
  /** The plugins' clock (a TestClock's `now`); Date.now by default. */
  now?: () => number;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const sim = await startSim(options.sim ?? {});
  const file = join(mkdtempSync(join(tmpdir(), 'gateway-test-')), 'gateway.yaml');
  // Dialect and proxy tests run without the default auth plugin unless their YAML names a chain.
  const yaml = options.yaml ?? '';
  writeFileSync(file, /^plugins:/m.test(yaml) ? yaml : `${yaml}\nplugins: []\n`);
  const env = {
    GATEWAY_PORT: '0',
    GATEWAY_UPSTREAM_URL: (options.upstreamUrls ?? [`${sim.url}/v1`]).join(','),
    GATEWAY_LOG_LEVEL: 'info',
    ...options.env,
  };
  const logs: string[] = [];
  const awaited = new Set<{ matches: (entry: LogEntry) => boolean; resolve: (entry: LogEntry) => void }>();
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        logs.push(line);
        if (awaited.size === 0) continue;
        const entry = JSON.parse(line) as LogEntry;
        for (const waiter of awaited) {
          if (!waiter.matches(entry)) continue;
          awaited.delete(waiter);
          waiter.resolve(entry);
        }
      }
      callback();
    },
  });
  const loaded = loadConfig(file, env);
  const gateway = await startGateway(loaded, { env, logDestination, ...(options.now ? { now: options.now } : {}) });
  const dataDir = dataDirOf(loaded);
  let store: Promise<Store> | undefined;
  return {
    gateway,
    sim,
    baseURL: `${gateway.url}/v1`,
    logs,
    logged(matches) {
      const written = logs.map((line) => JSON.parse(line) as LogEntry).find(matches);
      if (written !== undefined) return Promise.resolve(written);
      return new Promise((resolve) => awaited.add({ matches, resolve }));
    },
    dataDir,
    store() {
      store ??= openStore(storeOptionsOf(loaded));
      return store;
    },
    async close() {
      await (await store)?.close();
      await gateway.close();
      await sim.close();
    },
  };
}

/**
 * A request's one log line. The gateway writes it when the exchange is over, after the plugins'
 * `finally` (the meter's settlement, the rate limiter's output charge), so what they write is in.
 */
export function requestLine(stack: Stack, requestId: string | null): Promise<LogEntry> {
  return stack.logged((entry) => entry.msg === 'request' && entry.requestId === requestId);
}
