import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { ConfigError } from '../config/errors.js';
import type { LoadedConfig } from '../config/load.js';
import { PLUGIN_HOOKS, type Plugin } from '../core/plugin.js';
import { paramOf } from '../validation/field-path.js';
import { MODULE_EXPORTS, type PluginContext, type PluginModule } from './plugin-module.js';

// Not the gateway's strict instance: a plugin's schema may use keywords of its own (or annotations).
const ajv = new Ajv({ allErrors: false, strict: false });

/**
 * Builds the chain's plugins in config order: a built-in by `name`, or a module file by `path`
 * (relative to the config file). Unknown names, unloadable files and bad options fail here, naming the line.
 */
export async function loadPlugins(
  loaded: LoadedConfig,
  builtins: Readonly<Record<string, PluginModule>>,
  context: Omit<PluginContext, 'resolvePath'>,
): Promise<Plugin[]> {
  const resolvePath = (path: string): string => resolve(loaded.baseDir, path);
  const plugins: Plugin[] = [];
  for (const [index, entry] of loaded.config.plugins.entries()) {
    const where = loaded.locate(['plugins', index]);
    const module =
      entry.name !== undefined ? builtins[entry.name] : await importModule(resolvePath(entry.path!), where);
    if (module === undefined) {
      const known = Object.keys(builtins).join(', ') || 'none';
      throw new ConfigError(`${where}: unknown plugin '${entry.name}' (built-in plugins: ${known})`);
    }
    const missing = module.after?.find(
      (name) => !loaded.config.plugins.slice(0, index).some((earlier) => earlier.name === name),
    );
    if (missing !== undefined)
      throw new ConfigError(`${where}: plugin '${entry.name ?? entry.path}' needs '${missing}' earlier in the chain`);
    const options = entry.options ?? {};
    if (module.optionsSchema !== undefined) {
      const validate = ajv.compile(module.optionsSchema);
      if (!validate(options)) {
        const error = validate.errors?.[0];
        const key = paramOf(error?.instancePath ?? '');
        throw new ConfigError(
          `${where}: plugin options${key ? ` key '${key}'` : ''} ${error?.message ?? 'are invalid'}`,
        );
      }
    }
    const plugin = await module.create(options, { ...context, resolvePath });
    const unknownHook = Object.keys(plugin).find(
      (key) => typeof (plugin as unknown as Record<string, unknown>)[key] === 'function' && !PLUGIN_HOOKS.includes(key),
    );
    if (unknownHook !== undefined)
      throw new ConfigError(
        `${where}: plugin '${plugin.name}' has an unknown hook '${unknownHook}' (hooks: ${PLUGIN_HOOKS.join(', ')})`,
      );
    plugins.push(plugin);
  }
  return plugins;
}

async function importModule(file: string, where: string): Promise<PluginModule> {
  let imported: { default?: unknown; create?: unknown; optionsSchema?: unknown };
  try {
    imported = (await import(pathToFileURL(file).href)) as typeof imported;
  } catch (error) {
    throw new ConfigError(
      `${where}: cannot load plugin file ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const candidate = (typeof imported.create === 'function' ? imported : imported.default) as
    Partial<PluginModule> | undefined;
  if (typeof candidate?.create !== 'function')
    throw new ConfigError(`${where}: plugin file ${file} exports no create(options, context) function`);
  // A hook exported beside create (not returned by it) would never run: refused, named.
  const unknown = Object.keys(candidate).find((name) => !MODULE_EXPORTS.includes(name));
  if (unknown !== undefined)
    throw new ConfigError(
      `${where}: plugin file ${file} exports an unknown name '${unknown}' (a plugin module exports ${MODULE_EXPORTS.join(', ')}; hooks belong on the plugin create returns)`,
    );
  return candidate as PluginModule;
}
