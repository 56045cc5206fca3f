// The plugin loader's rules for what a plugin module is (plugins/load-plugins.ts): definePlugin's typed
// options, the names a module may export, the hooks a plugin may have, and the capabilities it publishes.
import { join } from 'node:path';
import type { JSONSchemaType } from 'ajv';
import t from 'tap';
import { loadConfig } from '../../../config/load.js';
import { capabilityOf } from '../../../core/capabilities.js';
import type { Plugin } from '../../../core/plugin.js';
import { loadPlugins } from '../../../plugins/load-plugins.js';
import { definePlugin } from '../../../plugins/plugin-module.js';
import { configFolder } from '../../helpers/config-files.js';
import { storelessPluginContext } from '../../helpers/plugin-context.js';

const { dir, file } = configFolder('gateway-plugin-loading-');

const context = storelessPluginContext(dir);

interface LevelOptions {
  level: number;
}

const levelSchema: JSONSchemaType<LevelOptions> = {
  type: 'object',
  additionalProperties: false,
  required: ['level'],
  properties: { level: { type: 'integer', minimum: 1 } },
};

t.test('definePlugin: create gets the options its schema checked, typed', async (t) => {
  let received: LevelOptions | undefined;
  const module = definePlugin<LevelOptions>({
    optionsSchema: levelSchema,
    create: (options) => ((received = options), { name: `level-${options.level}` }),
  });
  const path = file('typed.yaml', 'plugins:\n  - name: level\n    options: { level: 2 }\n');
  const plugins = await loadPlugins(loadConfig(path, {}), { level: module }, context);
  t.same(
    plugins.map((plugin) => plugin.name),
    ['level-2'],
  );
  t.same(received, { level: 2 });
});

t.test('definePlugin: options that break the schema fail at load, before create runs', async (t) => {
  let created = false;
  const module = definePlugin<LevelOptions>({
    optionsSchema: levelSchema,
    create: () => ((created = true), { name: 'level' }),
  });
  const path = file('typed-bad.yaml', 'plugins:\n  - name: level\n    options: { level: 0 }\n');
  await t.rejects(loadPlugins(loadConfig(path, {}), { level: module }, context), {
    message: `${path}:2: plugin options key 'level' must be >= 1`,
  });
  t.notOk(created);
});

t.test('a plugin module exporting an unknown name is refused at load, naming it', async (t) => {
  const path = file(
    'misplaced-hook.yaml',
    `plugins:\n  - path: ${join(process.cwd(), 'test/fixtures/misplaced-hook-plugin.mjs')}\n`,
  );
  await t.rejects(loadPlugins(loadConfig(path, {}), {}, context), {
    message: new RegExp(`^${path}:2: plugin file .*misplaced-hook-plugin\\.mjs exports an unknown name 'onRequest'`),
  });
});

t.test('a plugin with an unknown hook is refused at load, naming it', async (t) => {
  const misspelt = { create: () => ({ name: 'misspelt', onRequst() {} }) as Plugin };
  const path = file('misspelt-hook.yaml', 'plugins:\n  - name: misspelt\n');
  await t.rejects(loadPlugins(loadConfig(path, {}), { misspelt }, context), {
    message: `${path}:2: plugin 'misspelt' has an unknown hook 'onRequst' (hooks: onRequest, onConnect, handle, prepareCount, close)`,
  });
});

t.test('the built-in rate limiter publishes ratelimit.windowUse', async (t) => {
  const path = file('ratelimit.yaml', 'plugins:\n  - name: ratelimit\n    options: { backend: memory }\n');
  const { builtinPlugins } = await import('../../../plugins/index.js');
  const plugins = await loadPlugins(loadConfig(path, {}), builtinPlugins, context);
  t.teardown(() => plugins[0]!.close?.());
  t.type(capabilityOf(plugins, 'ratelimit.windowUse'), 'function');
});

t.test('a custom plugin that publishes ratelimit.windowUse serves it', async (t) => {
  const path = file(
    'custom-ratelimit.yaml',
    `plugins:\n  - path: ${join(process.cwd(), 'test/fixtures/window-use-plugin.mjs')}\n`,
  );
  const plugins = await loadPlugins(loadConfig(path, {}), {}, context);
  const windowUse = capabilityOf(plugins, 'ratelimit.windowUse');
  t.equal((await windowUse?.('org'))?.counts.requests.used, 3);
});

t.test('no plugin publishing a capability: there is none', async (t) => {
  const plain: Plugin = { name: 'plain' };
  t.equal(capabilityOf([plain], 'ratelimit.windowUse'), undefined);
});
