// The Redis settings: one server (`redis.url`) or the seeds of a Redis Cluster (`redis.cluster`,
// GATEWAY_REDIS_CLUSTER comma-separated), never both.
import t from 'tap';
import { loadConfig } from '../../../config/load.js';
import { configError, configFolder } from '../../helpers/config-files.js';

const { file } = configFolder('gateway-config-redis-');

t.test('redis.cluster takes seed URLs; GATEWAY_REDIS_CLUSTER, a comma-separated list, overrides it', async (t) => {
  const path = file('cluster.yaml', 'redis:\n  cluster: [redis://10.0.0.1:6379, redis://10.0.0.2:6379]\n');
  t.same(loadConfig(path, {}).config.redis.cluster, ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379']);
  const { config } = loadConfig(path, { GATEWAY_REDIS_CLUSTER: 'rediss://:secret@a:7000, rediss://b:7000,' });
  t.same(config.redis.cluster, ['rediss://:secret@a:7000', 'rediss://b:7000']);
  t.equal(config.redis.url, undefined);
});

t.test('redis.url and redis.cluster together are refused, naming both where they are set', async (t) => {
  const path = file('both.yaml', 'redis:\n  url: redis://10.0.0.1:6379\n');
  t.equal(
    configError(() => loadConfig(path, { GATEWAY_REDIS_CLUSTER: 'redis://10.0.0.2:6379' })),
    `${path}:2: key 'redis.url' and environment GATEWAY_REDIS_CLUSTER: key 'redis.cluster' are both set: give one Redis server or the seeds of one Redis Cluster`,
  );
});

t.test("a cluster's seeds are all TLS (rediss://) or none", async (t) => {
  const path = file('mixed.yaml', 'redis:\n  cluster:\n    - redis://a:7000\n    - rediss://b:7000\n');
  t.equal(
    configError(() => loadConfig(path, {})),
    `${path}:3: key 'redis.cluster' mixes redis:// and rediss:// seeds: the masters use TLS or not, all alike`,
  );
});

t.test('a seed that is not a Redis URL, or no seed at all, is refused with the key', async (t) => {
  t.match(
    configError(() => loadConfig(undefined, { GATEWAY_REDIS_CLUSTER: 'redis://a:7000,http://b:7000' })),
    /^environment GATEWAY_REDIS_CLUSTER: key 'redis.cluster\[1\]' must match/,
  );
  const path = file('empty.yaml', 'redis:\n  cluster: []\n');
  t.match(
    configError(() => loadConfig(path, {})),
    new RegExp(`^${path}:2: key 'redis.cluster'`),
  );
});
