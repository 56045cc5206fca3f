// A real nginx (Debian's; .ci/run installs nginx-light) in front of gateway nodes, with the documented
// configuration, docs/nginx/gateway.conf, rendered for the test's nodes as the fleet bench renders it
// (bench/fleet-nginx.ts): only the upstream's `server` lines and the `listen` line change. nginx runs
// in the foreground as one process (no master, no daemon), with its pid, logs and temporary files in a
// temporary directory, so it needs no root and touches nothing of the system's nginx.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOCUMENTED_CONF, mainConf, renderGatewayConf } from '../../bench/fleet-nginx.js';
import { freePort } from './free-port.js';
import { reapOnExit } from './reaper.js';

const NGINX = '/usr/sbin/nginx';

export interface RunningNginx {
  /** http://127.0.0.1:PORT */
  url: string;
  /** What nginx wrote to its error log (stderr) so far: upstream failures are there. */
  errors(): string;
  close(): Promise<void>;
}

/** Starts nginx with the documented configuration in front of `nodes` (host:port each). */
export async function startNginx(nodes: readonly string[]): Promise<RunningNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-nginx-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'gateway.conf'),
    renderGatewayConf(readFileSync(DOCUMENTED_CONF, 'utf8'), nodes, `127.0.0.1:${port}`),
  );
  writeFileSync(join(dir, 'nginx.conf'), mainConf(dir, join(dir, 'gateway.conf')));
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // SIGTERM: the master stops its workers (a killed master would leave them serving).
  child.once('exit', reapOnExit(child.pid!, 'SIGTERM'));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(new Error(`${NGINX} cannot run (apt-get install nginx-light): ${error.message}`)),
    );
    void exited.then(() => reject(new Error(`nginx exited: ${stderr}`)));
  });
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([listening(port), failed]);
  } catch (error) {
    await close();
    throw error;
  }
  failed.catch(() => undefined);
  return { url: `http://127.0.0.1:${port}`, errors: () => stderr, close };
}

/** Resolves once something accepts connections on the port (tried back to back, for at most 10 s). */
async function listening(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
  }
  throw new Error(`nginx did not listen on ${port} within 10 s`);
}
