// Transactions for the hot path (the meter's holds and settlements): compiled SQL run on the store's
// connection without Kysely's per-query machinery (its executor chain costs about 5 µs a statement,
// as much as SQLite takes to run one). Cold paths keep using the Kysely builder. A shared SQL server
// gets `kyselyTransactor`, the same queries through Kysely's own transactions.
import { CompiledQuery, type Kysely, type SqliteDatabase } from 'kysely';
import type { BoundQuery } from './query-template.js';

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
 */
export function sqliteTransactor<DB>(db: Kysely<DB>, database: SqliteDatabase): Transactor {
  const runner: SqlRunner = {
    async run<R>(query: BoundQuery) {
      const statement = database.prepare(query.sql);
      if (statement.reader) return { rows: statement.all(query.parameters) as R[], changes: 0 };
      return { rows: [], changes: Number(statement.run(query.parameters).changes) };
    },
  };
  // IMMEDIATE: the write lock is taken (waiting up to busy_timeout for another process) before any read.
  const begin = { sql: 'begin immediate', parameters: [] };
  const commit = { sql: 'commit', parameters: [] };
  const rollback = { sql: 'rollback', parameters: [] };
  return (work) =>
    db.connection().execute(async () => {
      await runner.run(begin);
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
