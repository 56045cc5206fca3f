import type { PluginModule } from '../proxy/plugin.js';

/** The built-in plugins a config can name in its `plugins` list. */
export const builtinPlugins: Readonly<Record<string, PluginModule>> = {};
