// How the config chooses and reaches the store: `store.url` set, PostgreSQL (pool size, connect
// timeout, TLS files read here so a missing file is a config error naming its key); unset, the
// SQLite file in the data directory.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { dataDirOf } from '../config/data-dir.js';
import { ConfigError } from '../config/errors.js';
import type { LoadedConfig } from '../config/load.js';
import type { StoreOptions } from '../store/store.js';

/** The URL parameters by which node-postgres sets TLS itself (they would override `store.tls`). */
const URL_TLS_PARAMETERS = ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey'];

export function storeOptionsOf(loaded: LoadedConfig): StoreOptions {
  const dataDir = dataDirOf(loaded);
  const { url, pool_size, connect_timeout_ms, tls } = loaded.config.store;
  if (url === undefined) return { dataDir };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${loaded.locate(['store', 'url'])}: key 'store.url' is not a URL`);
  }
  let options: ConnectionOptions | undefined;
  if (tls !== undefined) {
    const inUrl = URL_TLS_PARAMETERS.find((name) => parsed.searchParams.has(name));
    if (inUrl !== undefined)
      throw new ConfigError(
        `${loaded.locate(['store', 'tls'])}: key 'store.tls' is set and store.url has '${inUrl}': set TLS in one of them`,
      );
    const read = (key: 'ca_file' | 'cert_file' | 'key_file'): string | undefined => {
      const file = tls[key];
      if (file === undefined) return undefined;
      try {
        return readFileSync(resolve(loaded.baseDir, file), 'utf8');
      } catch (error) {
        throw new ConfigError(
          `${loaded.locate(['store', 'tls', key])}: key 'store.tls.${key}': cannot read ${file}: ${(error as Error).message}`,
        );
      }
    };
    const [ca, cert, key] = [read('ca_file'), read('cert_file'), read('key_file')];
    options = {
      rejectUnauthorized: tls.reject_unauthorized ?? true,
      ...(ca !== undefined ? { ca } : {}),
      ...(cert !== undefined ? { cert } : {}),
      ...(key !== undefined ? { key } : {}),
    };
  }
  return {
    dataDir,
    postgres: {
      url,
      poolSize: pool_size,
      connectTimeoutMs: connect_timeout_ms,
      ...(options !== undefined ? { tls: options } : {}),
    },
  };
}
