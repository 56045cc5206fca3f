// pg-boss's database adapters over the store's Kysely: pg-boss runs its SQL on the store's own connections, or
// inside one of the store's transactions, never on a pool of its own.
import { CompiledQuery, type QueryResult } from 'kysely';
import type PgBoss from 'pg-boss';
import type { Store } from '../store/store.js';

/** What runs SQL text: the store's Kysely, one of its connections, or one of its transactions. */
interface SqlExecutor {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/** pg-boss's database adapter inside a transaction of the store's: its SQL is part of that transaction. */
export function transactionDb(tx: SqlExecutor): PgBoss.Db {
  return {
    executeSql: async (text, values) => ({
      rows: (await tx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values ?? []))).rows,
    }),
  };
}

/** A PostgreSQL error as node-postgres gives it: the detail apart from the message. */
interface PostgresError extends Error {
  detail?: string;
}

/**
 * pg-boss takes a failure of its schema's making whose message says "already exists" for the race it is: another
 * node made it at that moment. PostgreSQL says so in the message when it finds the schema or a table there, but
 * when the two `CREATE SCHEMA`s meet in the catalog's unique index it says "duplicate key value violates unique
 * constraint" and puts "Key (nspname)=(pgboss) already exists." in the detail only; so the detail joins the
 * message, which pg-boss reads.
 */
function withDetail(error: unknown): unknown {
  if (error instanceof Error && typeof (error as PostgresError).detail === 'string') {
    error.message = `${error.message}: ${(error as PostgresError).detail}`;
  }
  return error;
}

/**
 * pg-boss's database adapter on the store's connections. Some of pg-boss's SQL opens a transaction in its text
 * (BEGIN; …; COMMIT); a statement that fails there leaves the connection in that aborted transaction, and pg-boss
 * expects some such failures (two nodes making its schema at once): so a failure is rolled back before the
 * connection goes back to the store's pool, which every request shares.
 */
export function poolDb(store: Store): PgBoss.Db {
  return {
    executeSql: (text, values) =>
      store.db.connection().execute(async (connection) => {
        try {
          return await transactionDb(connection).executeSql(text, values);
        } catch (error) {
          await connection.executeQuery(CompiledQuery.raw('ROLLBACK')).catch(() => undefined);
          throw withDetail(error);
        }
      }),
  };
}
