// Checks that compiled code finds its files without a TypeScript loader: a few sources are compiled
// with tsc into a fresh folder under dist/ (so their imports resolve the package's node_modules), and
// a script is run there with plain node.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { packageRoot } from '../../config/package-root.js';

const run = promisify(execFile);

/** Compiles `sources` (paths from the package root); returns the output folder, removed after the test. */
export async function compileToDist(t: Test, name: string, sources: readonly string[]): Promise<string> {
  const root = packageRoot();
  mkdirSync(join(root, 'dist'), { recursive: true });
  const outDir = mkdtempSync(join(root, 'dist', `.${name}-test-`));
  t.teardown(() => rmSync(outDir, { recursive: true, force: true }));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const options = [
    '--outDir',
    outDir,
    '--rootDir',
    root,
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    '--strict',
    '--resolveJsonModule',
    '--skipLibCheck',
    '--types',
    'node',
  ];
  await run(process.execPath, [tsc, ...options, ...sources.map((source) => join(root, source))], { cwd: root });
  return outDir;
}

/** Runs an ES module script with plain node (no NODE_OPTIONS, so no loader) from `cwd`; returns its stdout. */
export async function runPlainNode(outDir: string, script: string, cwd: string): Promise<string> {
  const file = join(outDir, 'check.mjs');
  writeFileSync(file, script);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, [file], { cwd, env });
  return stdout;
}
