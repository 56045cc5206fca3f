// The gateway under `npm run fuzz`: `gateway start` as a child process (so its memory is its own), with the
// default config plus the fuzz YAML, the embedded sim, and a fresh data directory.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GatewayChild {
  pid: number;
  url: string;
  /** Resident memory now and its peak so far (VmRSS, VmHWM), in MB. */
  memory(): { rssMb: number; peakMb: number };
  /** The child's stderr so far (its start-up lines, any crash). */
  stderr(): string;
  /** Whether it is still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

const GATEWAY_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'gateway.js');
const START_TIMEOUT_MS = 60_000;

export async function startGatewayChild(configFile: string, dataDir: string, logFile: string): Promise<GatewayChild> {
  // Only the defaults and the fuzz config: none of the caller's GATEWAY_* settings.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_')));
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, [GATEWAY_BIN, 'start', '--config', configFile], {
    // One process: the fuzz watches its memory and its exit.
    env: { ...env, GATEWAY_PORT: '0', GATEWAY_DATA_DIR: dataDir, GATEWAY_WORKERS: '1' },
    stdio: ['ignore', out, 'pipe'],
  });
  closeSync(out);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the gateway printed no address in ${START_TIMEOUT_MS} ms:\n${stderr}`)),
      START_TIMEOUT_MS,
    );
    const look = (): void => {
      const match = /Gateway on (http:\/\/\S+) /.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', look);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${child.exitCode ?? child.signalCode}:\n${stderr}`));
    });
  });
  const pid = child.pid!;
  return {
    pid,
    url,
    memory: () => readMemory(pid),
    stderr: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function readMemory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}
