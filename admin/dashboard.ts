// The dashboard's files (admin/dashboard/: HTML, CSS, plain JS; no build step), read once from the
// package's source folder, so they serve the same from a run of the sources and of dist/.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packageRoot } from '../config/package-root.js';

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
export function loadDashboard(dir: string = DASHBOARD_DIR): ReadonlyMap<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const file = { body: readFileSync(join(dir, name)), type };
    files.set(name === 'index.html' ? '/' : `/${name}`, file);
  }
  return files;
}
