// The `gateway` command as a child process: the build (dist/, which `npm test` makes first) when it is
// newer than the sources, else the TypeScript entry through tsx.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../config/package-root.js';
import { reapChild } from './reaper.js';

const root = packageRoot();
const built = join(root, 'dist', 'bin', 'gateway.js');
// The folders the build compiles, as tsconfig.json lists them (its `include`, globs of other files left out).
const sourceFolders = (
  JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { include: string[] }
).include.filter((entry) => !entry.includes('*'));
const newestSource = Math.max(
  ...sourceFolders.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map(
      (file) => statSync(join(root, dir, file)).mtimeMs,
    ),
  ),
);
const entry =
  existsSync(built) && statSync(built).mtimeMs >= newestSource
    ? [built]
    : ['--import', 'tsx', join(root, 'bin', 'gateway.ts')];

// The defaults and the given variables only: no config file or GATEWAY_* setting of the caller's, and
// none of tap's loaders and coverage (NODE_OPTIONS), which triple a child's start-up. One process, unless a
// test asks for workers (GATEWAY_WORKERS): a test's node is the process it signals and kills.
const baseEnvironment = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('GATEWAY_') && !name.startsWith('NODE_') && !name.startsWith('TAP'),
    ),
  ),
  GATEWAY_WORKERS: '1',
};

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `gateway ARGS…` to its end. */
export function runGateway(env: Record<string, string>, ...args: string[]): CliResult {
  const result = spawnSync(process.execPath, [...entry, ...args], {
    cwd: root,
    env: { ...baseEnvironment, ...env },
    encoding: 'utf8',
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

const START_TIMEOUT_MS = 60_000;

export interface GatewayProcess {
  child: ChildProcess;
  /** The gateway's base URL, read from the line it prints when it listens. */
  url: string;
  /** What it wrote to stderr up to that line. */
  stderr: string;
  /** SIGTERM, and the exit. */
  stop(): Promise<void>;
}

/** Starts `gateway start ARGS…` and waits for the line that gives its address. */
export async function startGatewayProcess(env: Record<string, string>, ...args: string[]): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [...entry, 'start', ...args], {
    cwd: root,
    env: { ...baseEnvironment, GATEWAY_PORT: '0', ...env },
  });
  reapChild(child);
  let stderr = '';
  // What it logs (stdout) is kept too, its end shown when it does not start: why it did not.
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout = (stdout + chunk.toString()).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: on a loaded 2-core CI machine a node's start (migrations, Redis, PostgreSQL) can take tens of seconds.
    const timer = setTimeout(
      () => reject(new Error(`no address printed in ${START_TIMEOUT_MS} ms: ${stderr}\nits log:\n${stdout}`)),
      START_TIMEOUT_MS,
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /Gateway on (http:\/\/[^ ]+) /.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${stderr}\nits log:\n${stdout}`));
    });
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, url, stderr, stop };
}
