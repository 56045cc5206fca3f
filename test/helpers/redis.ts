// A real redis-server (Debian's package; .ci/run installs it) on a free loopback port, without persistence.
import { spawn, type ChildProcess } from 'node:child_process';
import { reapChild } from './reaper.js';
import { freePort } from './free-port.js';

export interface RunningRedis {
  url: string;
  close(): Promise<void>;
}

/** On a free port, or on `port` (a server started again where a stopped one was, which its clients reconnect to). */
export async function startRedis(requested?: number): Promise<RunningRedis> {
  const port = requested ?? (await freePort());
  const child = await spawnRedisServer([
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  return {
    url: `redis://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Starts `redis-server ARGS…` and resolves once it accepts connections (its output then drained). */
export function spawnRedisServer(args: string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  reapChild(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve(child);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`redis-server cannot run (apt-get install redis-server): ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited ${code}: ${output}`));
    });
  });
}
