// nginx in front of a fleet of gateway nodes, with the documented configuration (docs/nginx/gateway.conf): its
// upstream's `server` lines become one per node (with the first line's parameters) and its `listen` line a loopback
// port; nothing else changes. Used by the fleet bench and by the fleet tests (test/helpers/nginx.ts), so both run
// the file the deployment guide gives operators.
import { join } from 'node:path';
import { packageRoot } from '../config/package-root.js';

export const DOCUMENTED_CONF = join(packageRoot(), 'docs', 'nginx', 'gateway.conf');

const SERVER_LINE = /^([ \t]*)server[ \t]+\d{1,3}(?:\.\d{1,3}){3}:\d+([^;\n]*);[ \t]*\n/gm;
const LISTEN_LINE = /^([ \t]*)listen[ \t]+80;/m;

/**
 * The documented file with `nodes` (host:port) as the upstream's servers and `listen` as its address.
 * Throws if the file no longer has the lines it replaces, so nothing silently runs another setup.
 */
export function renderGatewayConf(template: string, nodes: readonly string[], listen: string): string {
  const servers = [...template.matchAll(SERVER_LINE)];
  if (servers.length === 0) throw new Error('docs/nginx/gateway.conf: no `server ADDRESS:PORT …;` line to replace');
  if (!LISTEN_LINE.test(template)) throw new Error('docs/nginx/gateway.conf: no `listen 80;` line to replace');
  const [, indent, parameters] = servers[0]!;
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

/**
 * The main file around it: one process (no master, no daemon) so /proc measures nginx whole, with its pid, logs and
 * temporary files in `dir`; as root it stays root (else it hands its temporary folders to `nobody`).
 */
export function mainConf(dir: string, include: string): string {
  const temp = (name: string): string => `${name}_temp_path ${join(dir, name)};`;
  return `daemon off;
master_process off;
worker_processes 1;
${process.getuid?.() === 0 ? 'user root;\n' : ''}error_log stderr warn;
pid ${join(dir, 'nginx.pid')};
events { worker_connections 4096; }
http {
  access_log off;
  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}
  include ${include};
}
`;
}
