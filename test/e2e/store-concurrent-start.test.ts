// Nodes that start together on an empty SQLite data directory raced on the migrations: each applied
// them, and all but one exited with "migration 0001-initial failed: table "orgs" already exists". Then
// on the demo organization of a first start: all but one could exit with "database is locked".
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t, { type Test } from 'tap';
import { packageRoot } from '../../config/package-root.js';
import { migrations } from '../../store/migrations/index.js';
import { DATABASE_FILE } from '../../store/store.js';

const PROCESSES = 6;
const root = packageRoot();
const environment = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('NODE_') && !name.startsWith('TAP')),
);

interface Outcome {
  code: number | null;
  /** What it printed (JSON) when it succeeded. */
  result: unknown;
  err: string;
}

function opener(
  mode: 'open' | 'demo',
  dataDir: string,
): { child: ChildProcess; ready: Promise<void>; done: Promise<Outcome> } {
  const script = join(root, 'test/helpers/open-store-on-go.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, mode, dataDir], { cwd: root, env: environment });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith('ready\n')) resolve();
    });
    child.once('exit', () => reject(new Error(`exited before it was ready: ${err}`)));
  });
  const done = new Promise<Outcome>((resolve) =>
    child.once('exit', (code) =>
      resolve({ code, result: code === 0 ? JSON.parse(out.slice('ready\n'.length)) : undefined, err }),
    ),
  );
  return { child, ready, done };
}

/** PROCESSES processes open one new data directory at the same moment (each waits for the others to be loaded). */
async function openTogether(t: Test, mode: 'open' | 'demo'): Promise<{ dataDir: string; outcomes: Outcome[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-store-'));
  const openers = Array.from({ length: PROCESSES }, () => opener(mode, dataDir));
  t.teardown(() => openers.forEach(({ child }) => child.exitCode === null && child.kill('SIGKILL')));
  await Promise.all(openers.map(({ ready }) => ready));
  for (const { child } of openers) child.stdin!.write('go\n');
  const outcomes = await Promise.all(openers.map(({ done }) => done));
  for (const [index, outcome] of outcomes.entries()) t.equal(outcome.code, 0, `process ${index}: ${outcome.err}`);
  return { dataDir, outcomes };
}

function readDatabase(t: Test, dataDir: string): SQLite.Database {
  const database = new SQLite(join(dataDir, DATABASE_FILE), { readonly: true });
  t.teardown(() => database.close());
  return database;
}

t.test(
  'processes that open one new SQLite store at once all succeed, and each migration is applied once',
  async (t) => {
    const { dataDir, outcomes } = await openTogether(t, 'open');
    const names = Object.keys(await migrations.getMigrations()).sort();
    const applied = outcomes.flatMap((outcome) => (outcome.result as string[] | undefined) ?? []);
    t.same(applied.sort(), names, 'the processes applied every migration once between them');
    const rows = readDatabase(t, dataDir).prepare('select name from kysely_migration order by name').all();
    t.same(
      (rows as { name: string }[]).map((row) => row.name),
      names,
      'the migrations table lists each once',
    );
  },
);

t.test(
  'nodes that first start together on one new SQLite store all start, and one makes the demo organization',
  async (t) => {
    const { dataDir, outcomes } = await openTogether(t, 'demo');
    t.equal(outcomes.filter((outcome) => outcome.result === true).length, 1, 'one process made it');
    const orgs = readDatabase(t, dataDir).prepare('select name, balance_micros from orgs').all();
    t.same(orgs, [{ name: 'demo', balance_micros: 10_000_000 }], 'one demo organization, credited once');
  },
);
