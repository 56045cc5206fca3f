// A real nginx (Debian's; .ci/run installs nginx-light) in front of gateway nodes, with the documented
// configuration, docs/nginx/gateway.conf: its upstream's `server` lines become one per node (with the
// first line's parameters) and its `listen` line a free loopback port; nothing else changes. nginx runs
// in the foreground as one process (no master, no daemon), with its pid, logs and temporary files in a
// temporary directory, so it needs no root and touches nothing of the system's nginx.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../config/package-root.js';
import { freePort } from './free-port.js';

const NGINX = '/usr/sbin/nginx';
export const DOCUMENTED_CONF = join(packageRoot(), 'docs', 'nginx', 'gateway.conf');

export interface RunningNginx {
  /** http://127.0.0.1:PORT */
  url: string;
  /** What nginx wrote to its error log (stderr) so far: upstream failures are there. */
  errors(): string;
  close(): Promise<void>;
}

const SERVER_LINE = /^([ \t]*)server[ \t]+\d{1,3}(?:\.\d{1,3}){3}:\d+([^;\n]*);[ \t]*\n/gm;
const LISTEN_LINE = /^([ \t]*)listen[ \t]+80;/m;

/**
 * The documented file with `nodes` (host:port) as the upstream's servers and `listen` as its address.
 * Throws if the file no longer has the lines it replaces, so the test cannot silently run another setup.
 */
export function renderGatewayConf(template: string, nodes: readonly string[], listen: string): string {
  const servers = [...template.matchAll(SERVER_LINE)];
  if (servers.length === 0) throw new Error('docs/nginx/gateway.conf: no `server ADDRESS:PORT …;` line to replace');
  if (!LISTEN_LINE.test(template)) throw new Error('docs/nginx/gateway.conf: no `listen 80;` line to replace');
  const [first] = servers;
  const [, indent, parameters] = first!;
  const lines = nodes.map((node) => `${indent}server ${node}${parameters};\n`).join('');
  let replaced = false;
  return template
    .replace(SERVER_LINE, () => {
      if (replaced) return '';
      replaced = true;
      return lines;
    })
    .replace(LISTEN_LINE, (_line, space: string) => `${space}listen ${listen};`);
}

/** Starts nginx with the documented configuration in front of `nodes` (host:port each). */
export async function startNginx(nodes: readonly string[]): Promise<RunningNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-nginx-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'gateway.conf'),
    renderGatewayConf(readFileSync(DOCUMENTED_CONF, 'utf8'), nodes, `127.0.0.1:${port}`),
  );
  const temp = (name: string): string => `${name}_temp_path ${join(dir, name)};`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
error_log stderr warn;
pid ${join(dir, 'nginx.pid')};
events { worker_connections 1000; }
http {
  access_log off;
  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}
  include ${join(dir, 'gateway.conf')};
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
