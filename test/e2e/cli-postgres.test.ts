// The `gateway` CLI on PostgreSQL (GATEWAY_DATABASE_URL, a real server): migrate, then the life of an
// organization and a key, checked in the database the gateway nodes would share.
import t from 'tap';
import { loadConfig } from '../../config/load.js';
import { storeOptionsOf } from '../../services/store-options.js';
import { openStore } from '../../store/store.js';
import { runGateway, type CliResult } from '../helpers/gateway-process.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const environment = await freshStoreEnvironment('postgres');
const gateway = (...args: string[]): CliResult => runGateway(environment, ...args);

t.test('gateway migrate, orgs create, credits add, keys create and keys revoke work on PostgreSQL', async (t) => {
  const migrated = gateway('migrate');
  t.equal(migrated.code, 0, migrated.err);
  t.match(migrated.out, /^applied 0001-initial$/m);
  t.match(migrated.out, /^applied 0008-alerts$/m);
  t.match(migrated.err, /to postgres:\/\/gateway@127\.0\.0\.1:\d+\/store_/);
  t.match(gateway('migrate').err, /is up to date/);

  const created = gateway('orgs', 'create', 'acme', '--member', 'ada@example.com:admin');
  t.equal(created.code, 0, created.err);
  const [orgId] = created.out.trim().split('\t');
  const credits = gateway('credits', 'add', 'acme', '12.5');
  t.equal(credits.code, 0, credits.err);
  t.match(credits.out, /\t12\.5 credits$/m);
  const key = gateway('keys', 'create', 'acme', 'ci');
  t.equal(key.code, 0, key.err);
  t.match(key.out.trim(), /^sk-svc-[A-Za-z0-9_-]{43}$/);
  const revoked = gateway('keys', 'revoke', key.err.match(/created key (key_\S+)/)![1]!);
  t.equal(revoked.code, 0, revoked.err);
  t.match(revoked.out, /\trevoked$/m);
  const checked = gateway('ledger', 'check');
  t.equal(checked.code, 0, checked.err);
  t.match(checked.out, new RegExp(`^${orgId}\\tbalance 12\\.5 credits\\tadded 12\\.5 credits\\t`, 'm'));

  const store = await openStore(storeOptionsOf(loadConfig(undefined, environment)));
  t.teardown(() => store.close());
  t.ok(store.shared, 'the CLI and this reader share the PostgreSQL store');
  t.same(
    (await store.keys.list('acme')).map((record) => record.status),
    ['revoked'],
  );
  t.equal((await store.orgs.get('acme')).balanceMicros, 12_500_000);
});
