// The reads of open holds go through the partial indexes of open holds (usage_held, usage_held_key), so
// their cost follows the requests in flight, not the size of the ledger. Regression: with `state = ?`
// as a parameter, SQLite cannot prove the index's `state = 'held'` and scanned the whole table (the
// orphan sweep every minute; the caps' use at every capped admission).
import { CompiledQuery } from 'kysely';
import t from 'tap';
import { Ledger } from '../../../../plugins/meter/ledger.js';
import { CapUseStatement } from '../../../../store/caps.js';
import { openStore, type Store } from '../../../../store/store.js';
import { freshStoreOptions } from '../../../helpers/test-store.js';

let store: Store;
const sweepQueries: string[] = [];
t.before(async () => {
  store = await openStore({
    ...(await freshStoreOptions('sqlite')),
    log: (event) => {
      if (event.level === 'query' && /from "usage"/.test(event.query.sql)) sweepQueries.push(event.query.sql);
    },
  });
});
t.teardown(() => store.close());

/** SQLite's plan for a statement: one line per step. */
async function planOf(sql: string, parameters: readonly unknown[]): Promise<string> {
  const plan = await store.db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${sql}`, [...parameters]),
  );
  return plan.rows.map((row) => row.detail).join('\n');
}

t.test('the orphan sweep finds the open holds through usage_held, not by scanning the ledger', async (t) => {
  await new Ledger(store.db, store.transact).releaseOrphans(Date.now(), () => false);
  const sweep = sweepQueries.find((sql) => sql.startsWith('select'));
  t.ok(sweep, 'the sweep read the ledger');
  const plan = await planOf(sweep!, [Date.now()]);
  t.match(plan, /USING INDEX usage_held\b/);
  t.notMatch(plan, /SCAN usage/);
});

t.test("a key's and a member's use read their open holds through usage_held_key", async (t) => {
  const statement = new CapUseStatement(store.db);
  for (const scope of [
    { kind: 'key', keyId: 'key_x' },
    { kind: 'member', email: 'a@example.com' },
  ] as const) {
    const bound = statement.bind('org_x', scope, Date.now());
    const plan = await planOf(bound.sql, bound.parameters);
    t.match(plan, /SEARCH usage USING INDEX usage_held_key/, scope.kind);
    t.notMatch(plan, /SCAN usage/, scope.kind);
  }
});
