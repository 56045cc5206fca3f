// The embedded store: an SQLite file (better-sqlite3, WAL) in the data directory, one machine.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type LogConfig } from 'kysely';
import type { OpenedDatabase } from './opened-database.js';
import type { Database } from './schema.js';
import { StoreError } from './errors.js';
import { withStatementCache } from './statement-cache.js';
import { sqliteTransactor } from './transactor.js';

export const DATABASE_FILE = 'gateway.db';

/**
 * The database holds key hashes and the ledger: readable by the gateway's user alone. The file is
 * created 0600 before SQLite opens it (SQLite gives its -wal and -shm files the database's mode), and
 * files left wider by an older version are narrowed; chmod, so the umask does not matter.
 */
function ownerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/** Opens (creating it if missing) gateway.db in `dataDir`. */
export function openSqliteDatabase(dataDir: string, log?: LogConfig): OpenedDatabase {
  const path = join(dataDir, DATABASE_FILE);
  let sqlite: SQLite.Database;
  try {
    if (mkdirSync(dataDir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dataDir, 0o700);
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }), ...(log ? { log } : {}) });
  return { db, transact: sqliteTransactor(db, database), path };
}
