// A real PostgreSQL for the full chain on a shared store: initdb into a temporary folder, then the server itself
// (not pg_ctl, which would detach it) as the bench's child process on a free loopback port. Its CPU time is the
// whole process tree's (the postmaster, its background workers and one backend per pooled connection, plus the
// backends that have exited), so the work the gateway hands to the database is counted beside the gateway's.
// As root, PostgreSQL refuses to run: it runs as the `postgres` user Debian's package creates.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort, startServer, type ServerProcess } from './processes.js';

export interface BenchPostgres {
  /** For GATEWAY_DATABASE_URL: the superuser `gateway`, trusted on loopback, database `postgres`. */
  url: string;
  process: ServerProcess;
}

const ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin folder, or undefined when there is none. */
export function findPostgres(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const version = readdirSync(ROOT)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(ROOT, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version === undefined ? undefined : join(ROOT, version, 'bin');
}

export async function startPostgres(bin: string): Promise<BenchPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'postgres-bench-'));
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'gateway', '--auth=trust', '-E', 'UTF8', '--no-locale'], {
    stdio: 'ignore',
    ...owner,
  });
  const port = await freePort();
  // fsync stays on (the default), as in production: a commit costs what it costs.
  const server = await startServer({
    name: 'postgres',
    command: join(bin, 'postgres'),
    args: ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'max_connections=200'],
    port,
    tree: true,
    ...(owner !== undefined ? { user: owner } : {}),
  });
  const url = `postgres://gateway@127.0.0.1:${port}/postgres`;
  await acceptsQueries(url);
  return { url, process: server };
}

/** The port opens before the server takes queries ("the database system is starting up"): wait for a first one. */
async function acceptsQueries(url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (attempt >= 100) throw error;
      await sleep(100);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}
