// A fleet on this machine: N `gateway start` processes on one store and one Redis (FleetBackends), all
// calling one upstream, with the same config file and the same search and thinking secrets, behind nginx
// running the documented configuration (docs/nginx/gateway.conf). Organizations and keys are made with
// the `gateway` CLI, given the same variables as the nodes. Everything is stopped in the test's teardown,
// also when it fails.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Test } from 'tap';
import type { Store } from '../../store/store.js';
import { backendEnvironment, openFleetStore, type BackendsKind, type FleetBackends } from './fleet-backends.js';
import { runGateway, startGatewayProcess, type CliResult, type GatewayProcess } from './gateway-process.js';
import { startNginx, type RunningNginx } from './nginx.js';

export interface FleetOptions {
  /** The kind of store and Redis; the fleet starts its own and stops them in the teardown. */
  backends: BackendsKind;
  /** The upstream's base URL (…/v1), the same for every node: one sim sees the whole fleet's calls. */
  upstreamUrl: string;
  /** The config file every node and the CLI get (YAML). */
  config: string;
  /** How many nodes; 3 by default. */
  nodes?: number;
  /** More variables for every node and the CLI. */
  env?: Record<string, string>;
}

export type LogEntry = Record<string, unknown>;

export interface FleetNode extends GatewayProcess {
  /** host:port, as nginx's upstream names it. */
  address: string;
  /** Its stdout log lines, parsed, as they arrive. */
  logs: LogEntry[];
  /** Its exit code (null when a signal ended it), once it exits. */
  exit: Promise<number | null>;
}

export interface FleetOrg {
  orgId: string;
  key: string;
  keyId: string;
}

export interface Fleet {
  /** The fleet's store and Redis. */
  backends: FleetBackends;
  nodes: FleetNode[];
  /** nginx in front of every node. */
  front: RunningNginx;
  /** The variables every node and the CLI get: config, store, Redis, upstream, secrets. */
  env: Record<string, string>;
  /** Runs `gateway ARGS…` on the fleet's store and Redis; its stdout, or an error with its stderr unless it exits 0. */
  cli(...args: string[]): string;
  /** A new organization with `credits` (a decimal string, as `gateway credits add` takes it) and one key, all by the CLI. */
  createOrg(name: string, credits?: string): FleetOrg;
  /** Another key of an organization, by the CLI. */
  createKey(org: string, name: string): { key: string; keyId: string };
  /** The store, opened once from the test (closed in the teardown): to read the ledger. */
  store(): Promise<Store>;
}

export async function startFleet(t: Test, options: FleetOptions): Promise<Fleet> {
  const backends = await options.backends.start();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-fleet-config-'));
  const config = join(dir, 'gateway.yaml');
  writeFileSync(config, options.config);
  const env: Record<string, string> = {
    GATEWAY_CONFIG: config,
    ...backendEnvironment(backends),
    GATEWAY_UPSTREAM_URL: options.upstreamUrl,
    GATEWAY_SEARCH_SECRET: randomBytes(24).toString('hex'),
    GATEWAY_THINKING_SECRET: randomBytes(24).toString('hex'),
    GATEWAY_LOG_LEVEL: 'info',
    ...options.env,
  };

  const nodes: FleetNode[] = [];
  /** What the teardown stops, once started. */
  const started: { front?: RunningNginx; store?: Promise<Store> } = {};
  t.teardown(async () => {
    await started.front?.close();
    // SIGKILL: the teardown needs no drain, and a failed test may have left streams open.
    await Promise.all(
      nodes.map((node) => {
        if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
        return node.exit;
      }),
    );
    await (await started.store)?.close();
    await backends.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]): CliResult => {
    const result = runGateway(env, ...args);
    if (result.code !== 0) throw new Error(`gateway ${args.join(' ')} exited ${result.code}: ${result.err}`);
    return result;
  };
  const cli = (...args: string[]): string => run(...args).out;
  const createKey = (org: string, name: string): { key: string; keyId: string } => {
    const created = run('keys', 'create', org, name);
    const keyId = /created key (\S+)/.exec(created.err)?.[1];
    if (keyId === undefined) throw new Error(`gateway keys create: no key id in ${created.err}`);
    return { key: created.out.trim(), keyId };
  };
  // The nodes start together on an empty store: the first applies the migrations, the others wait for it.
  const starts = await Promise.allSettled(Array.from({ length: options.nodes ?? 3 }, () => startGatewayProcess(env)));
  for (const result of starts) if (result.status === 'fulfilled') nodes.push(fleetNode(result.value));
  const failure = starts.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  const front = await startNginx(nodes.map((node) => node.address));
  started.front = front;

  return {
    backends,
    nodes,
    front,
    env,
    cli,
    createOrg(name, credits) {
      const [orgId] = cli('orgs', 'create', name).trim().split('\t');
      if (credits !== undefined) cli('credits', 'add', name, credits);
      return { orgId: orgId!, ...createKey(name, 'fleet') };
    },
    createKey,
    store() {
      started.store ??= openFleetStore(backends.store);
      return started.store;
    },
  };
}

function fleetNode(process: GatewayProcess): FleetNode {
  const logs: LogEntry[] = [];
  // Read to the end: a node whose stdout pipe fills up stops.
  createInterface({ input: process.child.stdout! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as LogEntry);
    } catch {
      logs.push({ msg: line });
    }
  });
  const exit = new Promise<number | null>((resolve) => {
    if (process.child.exitCode !== null || process.child.signalCode !== null) resolve(process.child.exitCode);
    else process.child.once('exit', (code) => resolve(code));
  });
  return { ...process, address: new URL(process.url).host, logs, exit };
}
