import { join } from 'node:path';
import t from 'tap';
import { ConfigError } from '../../../config/errors.js';
import { loadConfig } from '../../../config/load.js';
import { loadPlugins } from '../../../plugins/load-plugins.js';
import { builtinPlugins } from '../../../plugins/index.js';
import type { PluginModule } from '../../../plugins/plugin-module.js';
import { configError, configFolder } from '../../helpers/config-files.js';
import { storelessPluginContext } from '../../helpers/plugin-context.js';

const { dir, file } = configFolder('gateway-config-');

const context = storelessPluginContext(dir);

t.test('the embedded defaults load and validate on their own', async (t) => {
  const { config } = loadConfig(undefined, {});
  t.equal(config.server.port, 8080);
  t.same(config.upstream.urls, []);
  t.equal(config.wire, 'auto', 'negotiated per request (docs/wire.md)');
});

t.test('a config file is merged over the defaults', async (t) => {
  const { config } = loadConfig(file('merge.yaml', 'server:\n  port: 9999\nmodel:\n  id: my-model\n'), {});
  t.equal(config.server.port, 9999);
  t.equal(config.server.host, '127.0.0.1', 'keys not in the file keep their default');
  t.equal(config.model.id, 'my-model');
});

t.test('GATEWAY_ variables override the file and the defaults', async (t) => {
  const env = {
    GATEWAY_HOST: '0.0.0.0',
    GATEWAY_PORT: '7000',
    GATEWAY_UPSTREAM_URL: 'http://a:8000/v1, http://b:8000/v1',
    GATEWAY_DATA_DIR: '/tmp/x',
  };
  const { config } = loadConfig(file('env.yaml', 'server:\n  port: 9999\n'), env);
  t.equal(config.server.host, '0.0.0.0');
  t.equal(config.server.port, 7000);
  t.same(config.upstream.urls, ['http://a:8000/v1', 'http://b:8000/v1']);
  t.equal(config.data_dir, '/tmp/x');
});

t.test('an invalid value is refused with the file, the line and the key', async (t) => {
  const path = file('bad-value.yaml', 'server:\n  host: 127.0.0.1\n  port: 70000\n');
  t.equal(
    configError(() => loadConfig(path, {})),
    `${path}:3: key 'server.port' must be <= 65535`,
  );
});

t.test('an optional key left empty (null in YAML) is refused, not taken as unset', async (t) => {
  const path = file('empty-optional.yaml', 'redis:\n  url:\n');
  t.equal(
    configError(() => loadConfig(path, {})),
    `${path}:2: key 'redis.url' must be string`,
  );
  const plugins = file('empty-option.yaml', 'plugins:\n  - name: auth\n    options: { cache_ttl_ms: null }\n');
  await t.rejects(
    loadPlugins(loadConfig(plugins, {}), builtinPlugins, context),
    new ConfigError(`${plugins}:2: plugin options key 'cache_ttl_ms' must be integer`),
  );
});

t.test('an unknown key is refused with its line', async (t) => {
  const path = file('unknown.yaml', 'upstream:\n  urls: []\n  retrys: 3\n');
  t.equal(
    configError(() => loadConfig(path, {})),
    `${path}:3: unknown key 'upstream.retrys'`,
  );
});

t.test('invalid YAML is refused with its line', async (t) => {
  const path = file('syntax.yaml', 'server:\n  port: 1\n\thost: x\n');
  t.match(
    configError(() => loadConfig(path, {})),
    new RegExp(`^${path}:3: invalid YAML`),
  );
});

t.test('a bad environment value names the variable', async (t) => {
  t.match(
    configError(() => loadConfig(undefined, { GATEWAY_PORT: 'eighty' })),
    /environment GATEWAY_PORT/,
  );
  t.match(
    configError(() => loadConfig(undefined, { GATEWAY_UPSTREAM_URL: 'ftp://x' })),
    /^environment GATEWAY_UPSTREAM_URL: key 'upstream.urls\[0\]'/,
  );
});

t.test('plugins load in config order, from a path with options', async (t) => {
  const path = file(
    'plugins.yaml',
    `plugins:\n  - path: ${join(process.cwd(), 'test/fixtures/tag-plugin.mjs')}\n    options: { tag: one }\n  - path: ${join(process.cwd(), 'test/fixtures/tag-plugin.mjs')}\n    options: { tag: two }\n`,
  );
  const plugins = await loadPlugins(loadConfig(path, {}), {}, context);
  t.same(
    plugins.map((plugin) => plugin.name),
    ['tag-one', 'tag-two'],
  );
});

t.test('a built-in plugin is found by name and gets its options', async (t) => {
  let received: unknown;
  const builtin: PluginModule = { create: (options) => ((received = options), { name: 'noop' }) };
  const path = file('builtin.yaml', 'plugins:\n  - name: noop\n    options: { level: 2 }\n');
  const plugins = await loadPlugins(loadConfig(path, {}), { noop: builtin }, context);
  t.same(
    plugins.map((plugin) => plugin.name),
    ['noop'],
  );
  t.same(received, { level: 2 });
});

t.test('an unknown plugin name fails at load, naming the line', async (t) => {
  const path = file('unknown-plugin.yaml', 'log:\n  level: info\nplugins:\n  - name: nosuch\n');
  await t.rejects(
    loadPlugins(loadConfig(path, {}), {}, context),
    new ConfigError(`${path}:4: unknown plugin 'nosuch' (built-in plugins: none)`),
  );
});

t.test('plugin options are checked against the plugin schema, naming the line', async (t) => {
  const path = file(
    'bad-options.yaml',
    `plugins:\n  - path: ${join(process.cwd(), 'test/fixtures/tag-plugin.mjs')}\n    options: { tag: 5 }\n`,
  );
  await t.rejects(loadPlugins(loadConfig(path, {}), {}, context), {
    message: `${path}:2: plugin options key 'tag' must be string`,
  });
});

t.test('a plugin file that cannot be loaded fails at load, naming the line', async (t) => {
  const path = file('missing-file.yaml', 'plugins:\n  - path: ./does-not-exist.mjs\n');
  await t.rejects(loadPlugins(loadConfig(path, {}), {}, context), {
    message: new RegExp(`^${path}:2: cannot load plugin file`),
  });
});

t.test('a plugin that needs another earlier in the chain fails at load, naming the line', async (t) => {
  const path = file('meter-first.yaml', 'plugins:\n  - name: meter\n  - name: auth\n');
  await t.rejects(
    loadPlugins(loadConfig(path, {}), builtinPlugins, context),
    new ConfigError(`${path}:2: plugin 'meter' needs 'auth' earlier in the chain`),
  );
});

t.test('model.aliases may not name model.id itself', async (t) => {
  const path = file('alias-self.yaml', 'model:\n  aliases: [claude-haiku-5-5, qwen3-8b]\n');
  t.match(
    configError(() => loadConfig(path, {})),
    /alias-self\.yaml:2: key 'model\.aliases' names 'qwen3-8b'/,
  );
});

t.test('upstream.weights gives one weight per URL of upstream.urls', async (t) => {
  const path = file('weights.yaml', 'upstream:\n  urls: [http://a:8000/v1, http://b:8000/v1]\n  weights: [2]\n');
  t.match(
    configError(() => loadConfig(path, {})),
    /weights\.yaml:3: key 'upstream\.weights' gives 1 weight\(s\) for 2 URL\(s\) in upstream\.urls/,
  );
  const good = file(
    'weights-good.yaml',
    'upstream:\n  urls: [http://a:8000/v1, http://b:8000/v1]\n  weights: [2, 1]\n',
  );
  t.same(loadConfig(good, {}).config.upstream.weights, [2, 1]);
});

t.test('upstream routing defaults: affinity, a load bound of 2, health probes every 5 s', async (t) => {
  const { upstream } = loadConfig(undefined, {}).config;
  t.same([upstream.routing, upstream.affinity_load_bound, upstream.health_check_interval_ms], ['affinity', 2, 5000]);
  const bad = file('routing.yaml', 'upstream:\n  routing: random\n');
  t.match(
    configError(() => loadConfig(bad, {})),
    /routing\.yaml:2/,
  );
  const low = file('bound.yaml', 'upstream:\n  affinity_load_bound: 0.5\n');
  t.match(
    configError(() => loadConfig(low, {})),
    /bound\.yaml:2/,
  );
});

t.test('server.bodies_in_flight_bytes may not be below server.body_limit_bytes', async (t) => {
  const path = file('bodies.yaml', 'server:\n  body_limit_bytes: 4096\n  bodies_in_flight_bytes: 2048\n');
  t.match(
    configError(() => loadConfig(path, {})),
    /bodies\.yaml:3: key 'server\.bodies_in_flight_bytes' is below server\.body_limit_bytes/,
  );
  t.equal(loadConfig(undefined, {}).config.server.bodies_in_flight_bytes, 256 * 1024 * 1024, 'the default: 256 MiB');
});
