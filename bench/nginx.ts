// nginx as a reference target, the practical limit of a proxy: one process doing all the work (no master, one
// worker's loop in it), so /proc/<pid>/stat measures it like the Node proxies; keep-alive to the sim, nothing buffered.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startServer, type ServerProcess } from './processes.js';

/** Where nginx may be: on the PATH, or where Debian's nginx-light puts it (not on a normal user's PATH). */
const NGINX_CANDIDATES = ['nginx', '/usr/sbin/nginx'];

export interface NginxProgram {
  path: string;
  /** `nginx -v`'s line, e.g. "nginx version: nginx/1.22.1". */
  version: string;
}

/** The installed nginx, or undefined when there is none. */
export function findNginx(): NginxProgram | undefined {
  for (const path of NGINX_CANDIDATES) {
    // nginx -v prints its version on stderr; a missing program leaves `error` set and no output.
    const result = spawnSync(path, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const version = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    if (result.error === undefined && version.includes('nginx')) return { path, version };
  }
  return undefined;
}

/** Starts nginx in front of `upstream` (the sim's origin) with its config, logs and temp files in a fresh temp folder. */
export async function startNginx(program: NginxProgram, upstream: string): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-bench-'));
  const port = await freePort();
  const config = join(dir, 'nginx.conf');
  writeFileSync(config, nginxConfig(dir, port, new URL(upstream).host));
  return startServer({
    name: 'nginx',
    command: program.path,
    // -e: the error log before the config is read (else the build's default, /var/log/nginx, may not be writable).
    args: ['-p', dir, '-c', config, '-e', join(dir, 'error.log')],
    port,
  });
}

/**
 * One process (`master_process off`) serving both sides; started as root, nginx would hand its temp folders to
 * `nobody` unless told to stay root (`user` is only allowed, and only needed, when running as root).
 */
function nginxConfig(dir: string, port: number, upstreamHost: string): string {
  const asRoot = process.getuid?.() === 0;
  return `# written by bench/nginx.ts
daemon off;
master_process off;
worker_processes 1;
${asRoot ? 'user root;\n' : ''}error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events {
  worker_connections 4096;
}
http {
  access_log off;
  client_body_temp_path ${dir}/client-body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # Client connections stay open as long as the Node proxies keep them (no close after 1,000 requests).
  keepalive_timeout 65s;
  keepalive_requests 1000000;
  upstream sim {
    server ${upstreamHost};
    keepalive 128;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://sim;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # Each upstream read is written to the client at once: streams stream.
      proxy_buffering off;
    }
  }
}
`;
}
