// What a fleet shares: its store and its Redis. A fleet test runs each scenario once per entry of
// FLEET_BACKENDS, so a new kind of store or Redis is one entry here (its servers started by the test)
// plus one branch in backendEnvironment and openFleetStore; the scenarios do not change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../store/store.js';
import { startRedis } from './redis.js';

/**
 * Where the nodes keep orgs, keys and the ledger: one SQLite data directory on this machine, or with
 * `url` a PostgreSQL database (the data directory then holds only the nodes' other files).
 */
export type FleetStore = { dataDir: string; url?: string };

/** The Redis every node uses for revocations, rate-limit counters and the prompt-cache registry. */
export type FleetRedis = { url: string };

export interface FleetBackends {
  store: FleetStore;
  redis: FleetRedis;
}

export interface RunningBackends extends FleetBackends {
  close(): Promise<void>;
}

export interface BackendsKind {
  /** Names the scenario's run: "shared SQLite + one Redis". */
  label: string;
  start(): Promise<RunningBackends>;
}

export const FLEET_BACKENDS: readonly BackendsKind[] = [
  {
    label: 'shared SQLite + one Redis',
    async start() {
      const dir = mkdtempSync(join(tmpdir(), 'gateway-fleet-'));
      const redis = await startRedis();
      return {
        store: { dataDir: join(dir, 'data') },
        redis: { url: redis.url },
        async close() {
          await redis.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

/** The variables that point a node, or the `gateway` CLI, at the fleet's store and Redis. */
export function backendEnvironment(backends: FleetBackends): Record<string, string> {
  return {
    GATEWAY_DATA_DIR: backends.store.dataDir,
    ...(backends.store.url === undefined ? {} : { GATEWAY_DATABASE_URL: backends.store.url }),
    GATEWAY_REDIS_URL: backends.redis.url,
  };
}

/** The fleet's store opened from the test, to read the ledger. */
export function openFleetStore(store: FleetStore): Promise<Store> {
  const { dataDir, url } = store;
  return openStore(
    url === undefined ? { dataDir } : { dataDir, postgres: { url, poolSize: 2, connectTimeoutMs: 2000 } },
  );
}
