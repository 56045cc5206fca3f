import type { PluginModule } from './plugin-module.js';
import { alertsPlugin } from './alerts/index.js';
import { authPlugin } from './auth/index.js';
import { meterPlugin } from './meter/index.js';
import { promptCachePlugin } from './promptcache/index.js';
import { rateLimitPlugin } from './ratelimit/index.js';
import { searchPlugin } from './search/index.js';

/** The built-in plugins a config can name in its `plugins` list. */
export const builtinPlugins: Readonly<Record<string, PluginModule>> = {
  auth: authPlugin,
  ratelimit: rateLimitPlugin,
  promptcache: promptCachePlugin,
  meter: meterPlugin,
  alerts: alertsPlugin,
  search: searchPlugin,
};
