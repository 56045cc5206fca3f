// The pages' files (admin/dashboard/ for the operator, console/pages/ for the members: HTML, CSS, plain JS;
// no build step), read once from the package's source folder, so they serve the same from a run of the
// sources and of dist/.
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { packageRoot } from '../config/package-root.js';
import { AdminError } from './errors.js';
import { SECURITY_HEADERS } from './http.js';

export interface StaticFile {
  body: Buffer;
  type: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export const DASHBOARD_DIR = join(packageRoot(), 'admin', 'dashboard');

/** URL path → file: `/` is index.html, every other file of the folder is `/<name>`. */
export function loadStaticFiles(dir: string): ReadonlyMap<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const file = { body: readFileSync(join(dir, name)), type };
    files.set(name === 'index.html' ? '/' : `/${name}`, file);
  }
  return files;
}

/** Answers a GET or HEAD with one of the files; a 404 for another path, a 405 for another method. */
export function serveStaticFile(
  files: ReadonlyMap<string, StaticFile>,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): void {
  const file = files.get(pathname);
  if (file === undefined) throw new AdminError('not_found', `no page ${pathname}`);
  if (req.method !== 'GET' && req.method !== 'HEAD')
    throw new AdminError('method_not_allowed', `${req.method} is not allowed on ${pathname}`, undefined, {
      allow: 'GET, HEAD',
    });
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': file.type, 'content-length': file.body.length });
  res.end(req.method === 'HEAD' ? undefined : file.body);
}
