// Servers under test, each in its own child process, so that /proc can tell each one's CPU time and memory.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ServerSpec {
  /** A short name for messages. */
  name: string;
  /** The program to run; this node by default. */
  command?: string;
  /** The script and its arguments, run with this node (or the program's arguments, with `command`). */
  args: string[];
  env?: NodeJS.ProcessEnv;
  port: number;
  /** Where the child's stdout goes (a file path), or nowhere. */
  stdoutFile?: string;
  /** How long a stop waits after SIGTERM before SIGKILL (longer for a process that writes a CPU profile as it exits). */
  stopGraceMs?: number;
  /** Measure the process with its descendants, CPU and memory (a server that forks workers, as PostgreSQL and a gateway with workers do). */
  tree?: boolean;
  /** Run as this user (the bench runs as root, which some servers refuse). */
  user?: { uid: number; gid: number };
}

/** How a Node server is started: node's flags (before the script), and how long a stop waits for it to exit. */
export interface Launch {
  nodeArgs: string[];
  stopGraceMs?: number;
}

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  /** User + system CPU time so far, in milliseconds, all threads. */
  cpuMs(): number;
  /** Resident memory now, in megabytes. */
  rssMb(): number;
  stop(): Promise<void>;
}

// Generous: several servers start at once, and a gateway loads its tokenizer and schemas before it listens.
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 3_000;
const running = new Set<ServerProcess>();

/** Clock ticks per second: the unit of utime and stime in /proc/<pid>/stat, and of /proc/stat. */
export const CLOCK_TICKS = readClockTicks();

/** Starts a server and waits until its port accepts connections. */
export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const out = spec.stdoutFile === undefined ? 'ignore' : openSync(spec.stdoutFile, 'a');
  const command = spec.command ?? process.execPath;
  const child = spawn(command, spec.args, {
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', out, 'pipe'],
    ...spec.user,
  });
  if (typeof out === 'number') closeSync(out);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-4000);
  });
  // A program that cannot be spawned (not installed) emits 'error' and never 'exit'.
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (error) => {
      stderr += `\n${error.message}`;
      resolve(null);
    });
  });
  const pid = child.pid;
  if (pid === undefined) {
    await exited;
    throw new Error(`${spec.name}: could not start ${command} ${spec.args.join(' ')}:${stderr}`);
  }
  const server: ServerProcess = {
    name: spec.name,
    pid,
    url: `http://127.0.0.1:${spec.port}`,
    cpuMs: () => (spec.tree === true ? readTreeCpuMs(pid) : readCpuMs(pid)),
    rssMb: () =>
      spec.tree === true ? processTree(pid).reduce((sum, [one]) => sum + readRssMb(one), 0) : readRssMb(pid),
    stop: async () => {
      running.delete(server);
      await stopChild(child, exited, spec.stopGraceMs ?? STOP_GRACE_MS);
    },
  };
  running.add(server);
  const outcome = await Promise.race([
    waitForPort(spec.port).then(() => 'ready' as const),
    exited.then((code) => code),
  ]);
  if (outcome !== 'ready') {
    running.delete(server);
    throw new Error(`${spec.name} exited with code ${outcome} before listening:\n${stderr}`);
  }
  return server;
}

/** Stops every server still running; for the end of the run and for errors. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((server) => server.stop()));
}

/** A port that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!stopped) {
    child.kill('SIGKILL');
    await exited;
  }
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await accepts(port)) return;
    await sleep(50);
  }
  throw new Error(`nothing listens on port ${port} after ${READY_TIMEOUT_MS} ms`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** utime + stime, fields 14 and 15 of /proc/<pid>/stat (counted after the parenthesised command name). */
function readCpuMs(pid: number): number {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/**
 * The CPU time of `pid` and every process below it: each one's utime + stime, and its cutime + cstime (fields 16
 * and 17: what its children that have exited and been waited for used), so a worker that came and went still counts.
 */
function readTreeCpuMs(pid: number): number {
  let ticks = 0;
  for (const [, fields] of processTree(pid))
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** `pid` and every process below it, each with its /proc stat fields. */
function processTree(pid: number): Array<[number, string[]]> {
  const children = new Map<number, number[]>();
  const stats = new Map<number, string[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fields: string[];
    try {
      fields = statFields(Number(name));
    } catch {
      continue; // exited while the folder was read
    }
    stats.set(Number(name), fields);
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const tree: Array<[number, string[]]> = [];
  for (const queue = [pid]; queue.length > 0;) {
    const next = queue.pop()!;
    const fields = stats.get(next);
    if (fields === undefined) continue;
    tree.push([next, fields]);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** The fields of /proc/<pid>/stat after the parenthesised command name (state first, then the parent's pid). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function readRssMb(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0; // exited since the tree was read
  }
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

function readClockTicks(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}
