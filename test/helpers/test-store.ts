// The store a unit test opens: the SQLite file (the default), or with GATEWAY_TEST_STORE=postgres a
// fresh database on one real PostgreSQL server per test file (test/helpers/postgres.ts), started on
// first use and stopped when the file's tests end. A `*-postgres.test.ts` file sets the variable and
// imports the SQLite file's tests, so the same tests run on both dialects.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { StoreOptions } from '../../store/store.js';
import { startPostgres, type RunningPostgres } from './postgres.js';

export type TestDialect = 'sqlite' | 'postgres';

/** The dialect this process's tests run on. */
export const testDialect: TestDialect = process.env.GATEWAY_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

let server: Promise<RunningPostgres> | undefined;
let databases = 0;
// Registered when this module loads, before the test file registers its own: tap runs teardowns last
// first, so the server stops after the stores and gateways on it have closed.
t.teardown(async () => (await server)?.close());

/** The file's PostgreSQL server (started on first call; closed when the file's tests end). */
export function testPostgres(): Promise<RunningPostgres> {
  server ??= startPostgres();
  return server;
}

/** Options of a new, empty store on the dialect under test; open them as often as needed. */
export async function freshStoreOptions(dialect: TestDialect = testDialect): Promise<StoreOptions> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-store-'));
  if (dialect === 'sqlite') return { dataDir };
  const url = await (await testPostgres()).createDatabase(`store_${process.pid}_${++databases}`);
  return { dataDir, postgres: { url, poolSize: 5, connectTimeoutMs: 10_000 } };
}

/** The environment that puts a gateway process or the CLI on a new store of the dialect under test. */
export async function freshStoreEnvironment(dialect: TestDialect = testDialect): Promise<Record<string, string>> {
  const options = await freshStoreOptions(dialect);
  return options.postgres === undefined
    ? { GATEWAY_DATA_DIR: options.dataDir }
    : { GATEWAY_DATA_DIR: options.dataDir, GATEWAY_DATABASE_URL: options.postgres.url };
}
