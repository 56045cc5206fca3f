// Transactions for the hot path (the meter's holds and settlements): compiled SQL run on the store's
// connection without Kysely's per-query machinery (its executor chain costs about 5 µs a statement,
// as much as SQLite takes to run one). Cold paths keep using the Kysely builder. A shared SQL server
// gets `kyselyTransactor`, the same queries through Kysely's own transactions.
import { CompiledQuery, type Kysely, type SqliteDatabase } from 'kysely';
import type { BoundQuery } from './query-template.js';

/** Tries of a busy write lock on the next turn of the event loop before trying once a millisecond (more spin: the bench
 * measured 2,127 µs a request for two workers with 8, 1,605 µs with 1). */
const QUICK_RETRIES = 1;

/** SQLite's "database is locked": another process holds the write lock. */
function isBusy(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    (error as { code: string }).code.startsWith('SQLITE_BUSY')
  );
}

export interface SqlRunner {
  /** Runs one statement: the rows it returns, and how many rows it changed. */
  run<R = Record<string, unknown>>(query: BoundQuery): Promise<{ rows: R[]; changes: number }>;
}

/** Runs `work` in one transaction, alone on the connection; rolls back if it throws. */
export type Transactor = <T>(work: (sql: SqlRunner) => Promise<T>) => Promise<T>;

/** Any Kysely dialect: the statements go through a Kysely transaction. */
export function kyselyTransactor<DB>(db: Kysely<DB>): Transactor {
  return (work) =>
    db.transaction().execute((trx) =>
      work({
        async run<R>(query: BoundQuery) {
          const result = await trx.executeQuery<R>(CompiledQuery.raw(query.sql, [...query.parameters]));
          return { rows: result.rows, changes: Number(result.numAffectedRows ?? 0n) };
        },
      }),
    );
}

/**
 * SQLite: prepared statements straight on the (statement-caching) database handle. Kysely's connection
 * is held meanwhile, so no Kysely transaction can be open on the same connection while this one runs.
 * `busyTimeoutMs`: how long a transaction waits for another process's write lock (the workers of a node
 * share one file), without blocking the event loop: SQLite's own busy wait sleeps the whole process
 * (1 ms, 2 ms, 5 ms… per try), which stalls every other request of the worker behind one lock.
 */
export function sqliteTransactor<DB>(db: Kysely<DB>, database: SqliteDatabase, busyTimeoutMs: number): Transactor {
  const runner: SqlRunner = {
    async run<R>(query: BoundQuery) {
      const statement = database.prepare(query.sql);
      if (statement.reader) return { rows: statement.all(query.parameters) as R[], changes: 0 };
      return { rows: [], changes: Number(statement.run(query.parameters).changes) };
    },
  };
  // IMMEDIATE: the write lock is taken before any read; when another process holds it, the attempt fails at
  // once (busy_timeout 0 for it) and is tried again on a later turn of the event loop, up to busyTimeoutMs.
  const begin = { sql: 'begin immediate', parameters: [] };
  const noWait = { sql: 'pragma busy_timeout = 0', parameters: [] };
  const wait = { sql: `pragma busy_timeout = ${Math.floor(busyTimeoutMs)}`, parameters: [] };
  const takeWriteLock = async (): Promise<void> => {
    const deadline = Date.now() + busyTimeoutMs;
    await runner.run(noWait);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await runner.run(begin);
          return;
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw error;
          // The next turn first (a lock is held for a commit's fraction of a millisecond), then each millisecond.
          await new Promise((resolve) => (attempt <= QUICK_RETRIES ? setImmediate(resolve) : setTimeout(resolve, 1)));
        }
      }
    } finally {
      await runner.run(wait);
    }
  };
  const commit = { sql: 'commit', parameters: [] };
  const rollback = { sql: 'rollback', parameters: [] };
  return (work) =>
    db.connection().execute(async () => {
      await takeWriteLock();
      try {
        const result = await work(runner);
        await runner.run(commit);
        return result;
      } catch (error) {
        await runner.run(rollback).catch(() => undefined); // SQLite may have rolled back already
        throw error;
      }
    });
}
