// A real Redis Cluster of three masters and no replicas (Debian's redis-server and redis-cli), each
// master on a free loopback port with its cluster bus on another, in a temporary directory, without
// persistence. With no replicas, losing a master leaves its slots unserved; `cluster-require-full-coverage
// no` keeps the other masters answering for theirs.
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { spawnRedisServer } from './redis.js';

const run = promisify(execFile);

/** How long the cluster may take to form, or to heal after a master comes back. */
const SETTLE_TIMEOUT_MS = 20_000;
/** How long a master may go unanswered before the others mark it failed (cluster-node-timeout). */
const CLUSTER_NODE_TIMEOUT_MS = 1000;

export interface RunningRedisCluster {
  /** The masters' URLs, `redis://127.0.0.1:PORT`: the seeds for `redis.cluster`. */
  urls: string[];
  ports: number[];
  /** Kills master `i` (SIGKILL): the loss of a master, whose slots nobody serves until it is back. */
  stopMaster(i: number): Promise<void>;
  /** Starts master `i` again (if stopped) on its port with its nodes.conf, and waits until the cluster is whole again. */
  restartMaster(i: number): Promise<void>;
  /** The index of the master serving a key's slot. */
  masterOf(key: string): Promise<number>;
  /** What `redis-cli` answers master `i` (e.g. `client list type pubsub`). */
  cli(i: number, ...args: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startRedisCluster(): Promise<RunningRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-redis-cluster-'));
  // Six different ports, three for the masters and three for their cluster buses (freePort releases
  // the port it finds, so it may find one twice).
  const found = new Set<number>();
  while (found.size < 6) found.add(await freePort());
  const ports = [...found].slice(0, 3);
  const busPorts = [...found].slice(3);
  const children: Array<ChildProcess | undefined> = [];
  const startMaster = async (i: number): Promise<void> => {
    children[i] = await spawnRedisServer([
      '--port',
      String(ports[i]),
      '--cluster-port',
      String(busPorts[i]),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, `nodes-${ports[i]}.conf`),
      '--cluster-node-timeout',
      String(CLUSTER_NODE_TIMEOUT_MS),
      '--cluster-require-full-coverage',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ]);
  };
  const close = async (): Promise<void> => {
    await Promise.all(children.map((child) => kill(child, 'SIGTERM')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([0, 1, 2].map(startMaster));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-yes']);
    await whole(ports);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    urls: ports.map((port) => `redis://127.0.0.1:${port}`),
    ports,
    async stopMaster(i) {
      await kill(children[i], 'SIGKILL');
      children[i] = undefined;
    },
    async restartMaster(i) {
      if (children[i] === undefined) await startMaster(i);
      await whole(ports);
    },
    async masterOf(key) {
      const asked = ports.find((_, i) => children[i] !== undefined)!;
      const slot = Number((await cli(asked, 'cluster', 'keyslot', key)).trim());
      const slots = await cli(asked, 'cluster', 'slots');
      const i = ports.findIndex((port) => servesSlot(slots, slot, port));
      if (i < 0) throw new Error(`no master serves slot ${slot}`);
      return i;
    },
    cli: (i, ...args) => cli(ports[i]!, ...args),
    close,
  };
}

/** Resolves once `cluster info` says ok on every master and none sees another as failed. */
async function whole(ports: number[]): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const healthy = await Promise.all(
      ports.map(async (port) => {
        const [info, nodes] = await Promise.all([cli(port, 'cluster', 'info'), cli(port, 'cluster', 'nodes')]);
        const lines = nodes.trim().split('\n');
        return (
          info.includes('cluster_state:ok') &&
          lines.length === ports.length &&
          lines.every((line) => {
            // id, address, flags (master,fail? or master,fail when it is thought lost), …, link state, slots
            const flags = (line.split(' ')[2] ?? '').split(',');
            return line.includes(' connected') && !flags.includes('fail') && !flags.includes('fail?');
          })
        );
      }),
    ).catch(() => [false]);
    if (healthy.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error('the Redis Cluster did not become whole');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

/** Whether `redis-cli cluster slots` output (one value per line) shows `port` serving `slot`. */
function servesSlot(output: string, slot: number, port: number): boolean {
  // Each range is: start, end, then the master's host, port and id (one value per line).
  const lines = output.trim().split('\n');
  for (let i = 0; i + 3 < lines.length; i++) {
    const start = Number(lines[i]);
    const end = Number(lines[i + 1]);
    if (lines[i + 2] === '127.0.0.1' && Number(lines[i + 3]) === port && start <= slot && slot <= end) return true;
  }
  return false;
}

async function kill(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
