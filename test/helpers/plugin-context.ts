// What loadPlugins gives plugins, for tests whose plugins never open the store.
import { loadConfig } from '../../config/load.js';
import type { PluginContext } from '../../plugins/plugin-module.js';
import { LogNotifier } from '../../notify/log-notifier.js';
import { LocalRevocationBus } from '../../store/revocations.js';

export function storelessPluginContext(dataDir: string): Omit<PluginContext, 'resolvePath'> {
  return {
    config: loadConfig(undefined, {}).config,
    modelId: 'm',
    dataDir,
    store: () => Promise.reject(new Error('no store in these tests')),
    revocations: new LocalRevocationBus(),
    redis: () => undefined,
    notifier: new LogNotifier(undefined),
    metrics: undefined,
    now: Date.now,
  };
}
