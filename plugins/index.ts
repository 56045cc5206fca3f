import type { PluginModule } from '../proxy/plugin.js';
import { authPlugin } from './auth/index.js';

/** The built-in plugins a config can name in its `plugins` list. */
export const builtinPlugins: Readonly<Record<string, PluginModule>> = { auth: authPlugin };
