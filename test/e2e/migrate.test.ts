// `gateway migrate` on the default store (the SQLite file in data_dir); on PostgreSQL: cli-postgres.test.ts.
import t from 'tap';
import { runGateway } from '../helpers/gateway-process.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

t.test('gateway migrate applies the migrations of a new store and prints them, then finds it up to date', async (t) => {
  const environment = await freshStoreEnvironment('sqlite');
  const first = runGateway(environment, 'migrate');
  t.equal(first.code, 0, first.err);
  t.same(first.out.trim().split('\n'), [
    'applied 0001-initial',
    'applied 0002-usage-holds',
    'applied 0003-money-integrity',
    'applied 0004-node-leases',
    'applied 0005-console',
    'applied 0006-caps',
    'applied 0007-payments',
    'applied 0008-alerts',
    'applied 0009-batches',
    'applied 0010-service-tiers',
  ]);
  t.match(first.err, /applied 10 migration\(s\) to .*gateway\.db/);
  const again = runGateway(environment, 'migrate');
  t.equal(again.code, 0, again.err);
  t.equal(again.out, '', 'nothing applied');
  t.match(again.err, /the store .*gateway\.db is up to date/);
  t.equal(runGateway(environment, 'migrate', 'now').code, 64, 'no arguments');
});
