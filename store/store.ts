// The store: one Kysely code path over an SQLite file (better-sqlite3, WAL) in the data directory.
// A shared SQL server later is a different `dialect` here and nothing else (see schema.ts for int8).
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type LogConfig } from 'kysely';
import { StoreError } from './errors.js';
import { Keys } from './keys.js';
import { migrations } from './migrations/index.js';
import { Orgs } from './orgs.js';
import type { Database } from './schema.js';
import { withStatementCache } from './statement-cache.js';
import { sqliteTransactor, type Transactor } from './transactor.js';

export const DATABASE_FILE = 'gateway.db';

export interface StoreOptions {
  /** The folder that holds gateway.db (created 0700 if missing). */
  dataDir: string;
  /** How long last-used times wait in memory before one batched write (default 5000 ms). */
  touchFlushMs?: number;
  /** Kysely's query log, for debugging and tests. */
  log?: LogConfig;
}

export interface Store {
  readonly orgs: Orgs;
  readonly keys: Keys;
  /** The database file. */
  readonly path: string;
  /** The typed query builder, for the parts of the gateway that own other tables (the usage ledger). */
  readonly db: Kysely<Database>;
  /** Transactions of precompiled statements for hot paths (the meter's holds and settlements). */
  readonly transact: Transactor;
  /** Writes pending last-used times, then closes the database. */
  close(): Promise<void>;
}

/**
 * The database holds key hashes and the ledger: readable by the gateway's user alone. The file is
 * created 0600 before SQLite opens it (SQLite gives its -wal and -shm files the database's mode), and
 * files left wider by an older version are narrowed; chmod, so the umask does not matter.
 */
function ownerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/** Opens (and creates or migrates) the store. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const path = join(options.dataDir, DATABASE_FILE);
  let sqlite: SQLite.Database;
  try {
    if (mkdirSync(options.dataDir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(options.dataDir, 0o700);
    ownerOnly(path);
    sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    // WAL + NORMAL: a commit is durable against a killed process (it is in the WAL file the moment
    // COMMIT returns) without an fsync per commit; a power loss or OS crash may lose the last commits.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
  } catch (error) {
    throw new StoreError(
      'GW_ERR_STORE_UNAVAILABLE',
      `cannot open the store ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const database = withStatementCache(sqlite);
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database }),
    ...(options.log ? { log: options.log } : {}),
  });
  const { error, results } = await new Migrator({ db, provider: migrations }).migrateToLatest();
  if (error !== undefined) {
    await db.destroy();
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    throw new StoreError(
      'GW_ERR_STORE_UNAVAILABLE',
      `store ${path}: migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const orgs = new Orgs(db);
  const keys = new Keys(db, orgs, options.touchFlushMs ?? 5000);
  return {
    orgs,
    keys,
    path,
    db,
    transact: sqliteTransactor(db, database),
    async close() {
      await keys.flushTouches();
      await db.destroy();
    },
  };
}
