// What a dialect's opener gives the store: the query builder, the hot path's transactions, and a name
// for logs. store.ts runs the migrations and builds the rest on it, the same for every dialect.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Transactor } from './transactor.js';

export interface OpenedDatabase {
  readonly db: Kysely<Database>;
  readonly transact: Transactor;
  /** The SQLite file, or the PostgreSQL URL without its password. */
  readonly path: string;
  /** Runs the migrations alone among the processes that open this store at the same time. */
  readonly migrating: <T>(work: () => Promise<T>) => Promise<T>;
}
