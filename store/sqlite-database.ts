// The embedded store: an SQLite file (better-sqlite3, WAL) in the data directory, one machine.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type LogConfig,
  type SqliteDialectConfig,
} from 'kysely';
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

/** How long a statement waits for another process's lock before it fails with "database is locked". */
const BUSY_TIMEOUT_MS = 5000;

/** Opens (creating it if missing) gateway.db in `dataDir`. */
export async function openSqliteDatabase(dataDir: string, log?: LogConfig): Promise<OpenedDatabase> {
  const path = join(dataDir, DATABASE_FILE);
  let sqlite: SQLite.Database | undefined;
  try {
    if (mkdirSync(dataDir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dataDir, 0o700);
    ownerOnly(path);
    sqlite = new SQLite(path, { timeout: BUSY_TIMEOUT_MS });
    await inWalMode(sqlite);
    // WAL + NORMAL: a commit is durable against a killed process (it is in the WAL file the moment
    // COMMIT returns) without an fsync per commit; a power loss or OS crash may lose the last commits.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
  } catch (error) {
    sqlite?.close();
    throw new StoreError(
      'GW_ERR_STORE_UNAVAILABLE',
      `cannot open the store ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const database = withStatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }), ...(log ? { log } : {}) });
  return {
    db,
    transact: sqliteTransactor(db, database, BUSY_TIMEOUT_MS),
    path,
    migrating: (work) => underWriteLock(sqlite, path, work),
  };
}

/**
 * Switches a new file to WAL mode (a file in WAL mode stays so). Processes opening a new file at once
 * each try the switch, which takes an exclusive lock without waiting (busy_timeout does not apply to
 * it): a busy attempt is tried again, up to the busy timeout.
 */
async function inWalMode(sqlite: SQLite.Database): Promise<void> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const busy = error instanceof SQLite.SqliteError && error.code.startsWith('SQLITE_BUSY');
      if (!busy || Date.now() >= deadline) throw error;
      await sleep(5 + Math.random() * 20);
    }
  }
}

/**
 * Kysely's transactions, IMMEDIATE: with other processes on the file (nodes sharing a data directory), a
 * deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another holds the
 * write lock (in WAL mode SQLite does not wait to upgrade a read to a write: the read would be stale).
 * Taking the write lock first makes it wait (busy_timeout) instead, as the meter's transactions do.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/**
 * Kysely's SQLite adapter takes no migration lock (it assumes one connection), so processes opening one
 * new file at once would each apply the migrations, and all but one fail. Here the whole run, from
 * creating Kysely's tables to the last migration, is one IMMEDIATE transaction on the connection Kysely
 * uses: the other processes wait for the write lock (busy_timeout), then find nothing pending; a
 * migration that fails rolls back whole. (Kysely runs SQLite migrations without transactions of its own.)
 */
async function underWriteLock<T>(sqlite: SQLite.Database, path: string, work: () => Promise<T>): Promise<T> {
  try {
    sqlite.exec('begin immediate');
  } catch (error) {
    throw new StoreError(
      'GW_ERR_STORE_UNAVAILABLE',
      `cannot open the store ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    const result = await work();
    sqlite.exec('commit');
    return result;
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    throw error;
  }
}
