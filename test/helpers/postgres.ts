// A real PostgreSQL server (Debian's `postgresql` package; .ci/run installs it) on a free loopback port,
// in a temporary directory, without fsync: initdb and pg_ctl from /usr/lib/postgresql/<version>/bin.
// As root, PostgreSQL refuses to run, so the programs run as the `postgres` user the package creates.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';
import { reapOnExit } from './reaper.js';

const run = promisify(execFile);

export interface RunningPostgres {
  /** postgres://gateway@127.0.0.1:PORT/postgres: the superuser, on the server's default database. */
  url: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server now (`immediate`: as a crash would), and deletes its directory. */
  close(): Promise<void>;
  /** Stops the server, as losing it would, keeping its data. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  start(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))[0]
    : undefined;
  if (version === undefined) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  return join(root, version, 'bin');
}

/** Runs a PostgreSQL program, as the `postgres` user when this process is root. */
async function runAs(program: string, args: string[]): Promise<void> {
  const path = join(binDir(), program);
  const root = process.getuid?.() === 0;
  await run(root ? 'runuser' : path, root ? ['-u', 'postgres', '--', path, ...args] : args);
}

export async function startPostgres(): Promise<RunningPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, idOf('-u', 'postgres'), idOf('-g', 'postgres'));
  const data = join(dir, 'data');
  const port = await freePort();
  await runAs('initdb', ['-D', data, '-U', 'gateway', '--auth=trust', '-E', 'UTF8', '--no-locale']);
  // fsync off: the tests kill gateways, not the machine; max_connections for three nodes' pools and more.
  const options = `-p ${port} -h 127.0.0.1 -k ${dir} -F -c max_connections=200`;
  // pg_ctl leaves the server running on its own: the postmaster (first line of postmaster.pid) is reaped with
  // this process, SIGQUIT being PostgreSQL's immediate shutdown.
  let release = (): void => undefined;
  const start = async (): Promise<void> => {
    await runAs('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    release = reapOnExit(Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGQUIT');
  };
  const stop = async (): Promise<void> => {
    await runAs('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    release();
  };
  await start();
  const url = `postgres://gateway@127.0.0.1:${port}/postgres`;
  return {
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`create database ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://gateway@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    async close() {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The numeric user or group id (`id -u` / `id -g`) of a system user. */
function idOf(flag: '-u' | '-g', user: string): number {
  return Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
}
