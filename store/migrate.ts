// Brings a database to the latest schema (migrations/). The migrator runs under a lock that nodes
// starting together share (PostgreSQL: Kysely's advisory lock; SQLite: the file's write lock, see
// sqlite-database.ts), so each migration is applied once: the first does, the others find nothing pending.
import { Migrator, type Kysely } from 'kysely';
import { StoreError } from './errors.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

/** Applies the pending migrations; returns their names, oldest first. `path` names the store in errors. */
export async function migrateToLatest(db: Kysely<Database>, path: string): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider: migrations }).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    const message = error instanceof Error ? error.message : String(error);
    throw new StoreError(
      'GW_ERR_STORE_UNAVAILABLE',
      failed === undefined
        ? `cannot open the store ${path}: ${message}`
        : `store ${path}: migration ${failed} failed: ${message}`,
    );
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
