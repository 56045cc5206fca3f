// The shared store: PostgreSQL through node-postgres, one pool per gateway node. Its int8 (bigint:
// money, times, counts) and numeric (what sum() of a bigint returns) arrive as numbers, parsed per
// pool, never through pg's global parsers: a value the code cannot hold exactly (beyond ±(2^53 − 1))
// fails its query rather than being rounded.
import type { ConnectionOptions } from 'node:tls';
import { Kysely, PostgresDialect, type LogConfig } from 'kysely';
import pg from 'pg';
import type { OpenedDatabase } from './opened-database.js';
import type { Database } from './schema.js';
import { retryingConflicts } from './transaction-retry.js';
import { kyselyTransactor } from './transactor.js';

export interface PostgresOptions {
  /** postgres://user:password@host:port/database, `sslmode` and the other ssl parameters as node-postgres reads them. */
  url: string;
  /** Connections this node opens at most. */
  poolSize: number;
  connectTimeoutMs: number;
  /** TLS options (CA, client certificate), when the URL does not say them. */
  tls?: ConnectionOptions;
}

const INT8 = 20;
const NUMERIC = 1700;

/** A number the gateway can hold exactly, from PostgreSQL's text form; else the query fails. */
function exactNumber(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
    throw new RangeError(
      `the database returned ${text}, beyond the ±${Number.MAX_SAFE_INTEGER} the gateway holds exactly`,
    );
  return value;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC
      ? exactNumber
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** The URL as logs may show it: no password. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return 'postgres://(unreadable URL)';
  }
}

/**
 * The pg pool, with its connections' errors handled: a connection that breaks (the server restarted
 * or went away) never ends the process, whether it was idle in the pool or checked out.
 */
export function createPool(options: PostgresOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    types,
    ...(options.tls ? { ssl: options.tls } : {}),
  });
  // An idle connection that breaks is dropped by the pool; the next query opens a new one or reports
  // the failure.
  pool.on('error', () => undefined);
  // A checked-out connection (a transaction between its queries) emits its error on the client, which
  // the pool no longer listens to: a query under way fails on its own, the next one fails at once, and
  // the pool drops the broken client when it comes back.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** A pool on the database; no connection is made until the first query (the migrations). */
export function openPostgresDatabase(options: PostgresOptions, log?: LogConfig): OpenedDatabase {
  const pool = createPool(options);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...(log ? { log } : {}) });
  return {
    db,
    transact: retryingConflicts(kyselyTransactor(db)),
    path: redactedUrl(options.url),
    // Kysely's migrator holds a PostgreSQL advisory lock while it reads and applies what is pending.
    migrating: (work) => work(),
  };
}
