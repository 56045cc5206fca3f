// pg-boss's adapters over the store's connections (batch/pg-boss-db.ts), on a real PostgreSQL.
import { CompiledQuery, sql } from 'kysely';
import t from 'tap';
import { poolDb } from '../../../batch/pg-boss-db.js';
import { openStore } from '../../../store/store.js';
import { freshStoreOptions } from '../../helpers/test-store.js';

t.test(
  'regression: a schema another node makes at the same moment fails with "already exists" in the message, which pg-boss takes for the race (it met the other in the catalog’s unique index and said so only in the detail)',
  async (t) => {
    const store = await openStore(await freshStoreOptions('postgres'));
    t.teardown(() => store.close());
    const failure = await store.db.connection().execute(async (other) => {
      await other.executeQuery(CompiledQuery.raw('BEGIN'));
      await other.executeQuery(CompiledQuery.raw('CREATE SCHEMA raced'));
      // This node's making waits on the other's uncommitted row in pg_namespace's unique index …
      const making = poolDb(store)
        .executeSql('CREATE SCHEMA IF NOT EXISTS raced', [])
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      for (;;) {
        const { rows } = await sql<{ waiting: number }>`
          select count(*)::int as waiting from pg_stat_activity
          where wait_event_type = 'Lock' and query like 'CREATE SCHEMA IF NOT EXISTS raced%'`.execute(store.db);
        if (rows[0]!.waiting > 0) break;
      }
      // … and fails when the other commits.
      await other.executeQuery(CompiledQuery.raw('COMMIT'));
      return making;
    });
    t.type(failure, Error);
    t.match((failure as Error).message, /already exists/);
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(store.db);
    t.same(rows, [{ one: 1 }], 'the connection went back to the pool usable');
  },
);
