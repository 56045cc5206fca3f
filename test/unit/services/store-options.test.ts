// Where the config puts the store (services/store-options.ts): SQLite in data_dir unless store.url
// (or GATEWAY_DATABASE_URL) names a PostgreSQL; its pool, timeout and TLS; a bad setting names its key.
import t from 'tap';
import { loadConfig } from '../../../config/load.js';
import { storeOptionsOf } from '../../../services/store-options.js';
import { configError, configFolder } from '../../helpers/config-files.js';

const { file } = configFolder('gateway-store-options-');

t.test('without store.url the store is the SQLite file in data_dir', async (t) => {
  const options = storeOptionsOf(loadConfig(undefined, { GATEWAY_DATA_DIR: '/tmp/gateway-x' }));
  t.same(options, { dataDir: '/tmp/gateway-x' });
});

t.test('store.url names a PostgreSQL, with the pool size and connect timeout', async (t) => {
  const config = file('pg.yaml', 'store:\n  url: postgresql://u:p@db:5432/gw\n  pool_size: 4\n');
  t.same(storeOptionsOf(loadConfig(config, {})).postgres, {
    url: 'postgresql://u:p@db:5432/gw',
    poolSize: 4,
    connectTimeoutMs: 10_000,
  });
});

t.test('GATEWAY_DATABASE_URL overrides store.url', async (t) => {
  const config = file('pg2.yaml', 'store:\n  url: postgres://a@one/gw\n');
  const loaded = loadConfig(config, { GATEWAY_DATABASE_URL: 'postgres://b@two/gw' });
  t.equal(storeOptionsOf(loaded).postgres?.url, 'postgres://b@two/gw');
  t.equal(loaded.locate(['store', 'url']), 'environment GATEWAY_DATABASE_URL');
});

t.test('store.tls reads its files relative to the config file', async (t) => {
  file('ca.pem', 'THE CA');
  const config = file(
    'tls.yaml',
    'store:\n  url: postgres://db/gw\n  tls: { ca_file: ca.pem, reject_unauthorized: false }\n',
  );
  t.same(storeOptionsOf(loadConfig(config, {})).postgres?.tls, { rejectUnauthorized: false, ca: 'THE CA' });
});

t.test('a bad store setting is a ConfigError naming the key', async (t) => {
  t.match(
    configError(() => loadConfig(undefined, { GATEWAY_DATABASE_URL: 'mysql://db/gw' })),
    /environment GATEWAY_DATABASE_URL: key 'store.url' must match pattern/,
  );
  t.match(
    configError(() => loadConfig(file('pool.yaml', 'store:\n  pool_size: 0\n'), {})),
    /pool\.yaml:2: key 'store.pool_size' must be >= 1/,
  );
  t.match(
    configError(() =>
      storeOptionsOf(
        loadConfig(file('missing.yaml', 'store:\n  url: postgres://db/gw\n  tls: { ca_file: nope.pem }\n'), {}),
      ),
    ),
    /key 'store\.tls\.ca_file': cannot read nope\.pem/,
  );
  t.match(
    configError(() =>
      storeOptionsOf(
        loadConfig(
          file('both.yaml', 'store:\n  url: postgres://db/gw?sslmode=require\n  tls: { ca_file: ca.pem }\n'),
          {},
        ),
      ),
    ),
    /key 'store\.tls' is set and store\.url has 'sslmode': set TLS in one of them/,
  );
});
