import { isAbsolute, resolve } from 'node:path';
import type { LoadedConfig } from './load.js';

/** The data directory a config names: relative to the working directory when set by GATEWAY_DATA_DIR, else to the config file. */
export function dataDirOf(loaded: LoadedConfig): string {
  const dir = loaded.config.data_dir;
  if (isAbsolute(dir)) return dir;
  return loaded.locate(['data_dir']).startsWith('environment') ? resolve(dir) : resolve(loaded.baseDir, dir);
}
