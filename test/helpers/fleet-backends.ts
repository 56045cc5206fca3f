// What a fleet shares: its store and its Redis. A fleet test runs each scenario once per entry of
// FLEET_BACKENDS: one PostgreSQL with one Redis, then one PostgreSQL with a Redis Cluster of three
// masters, each started by the test on loopback. A new kind of store or Redis is one entry here plus
// one branch in backendEnvironment; the scenarios do not change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../store/store.js';
import { startPostgres } from './postgres.js';
import { startRedis } from './redis.js';
import { startRedisCluster } from './redis-cluster.js';

/** Where the nodes keep orgs, keys and the ledger: a PostgreSQL database (`dataDir` only for each node's own files). */
export type FleetStore = { dataDir: string; url: string };

/** The Redis every node uses for revocations, rate-limit counters and the prompt-cache registry: one server, or a Cluster's seeds. */
export type FleetRedis = { url: string } | { cluster: string[] };

export interface FleetBackends {
  store: FleetStore;
  redis: FleetRedis;
}

export interface RunningBackends extends FleetBackends {
  close(): Promise<void>;
}

export interface BackendsKind {
  /** Names the scenario's run: "PostgreSQL + one Redis". */
  label: string;
  start(): Promise<RunningBackends>;
}

export const FLEET_BACKENDS: readonly BackendsKind[] = [
  {
    label: 'PostgreSQL + one Redis',
    async start() {
      const redis = await startRedis();
      return withPostgres({ url: redis.url }, () => redis.close());
    },
  },
  {
    label: 'PostgreSQL + a Redis Cluster',
    async start() {
      const cluster = await startRedisCluster();
      return withPostgres({ cluster: cluster.urls }, () => cluster.close());
    },
  },
];

async function withPostgres(redis: FleetRedis, closeRedis: () => Promise<void>): Promise<RunningBackends> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-fleet-'));
  const postgres = await startPostgres();
  const url = await postgres.createDatabase('fleet');
  return {
    store: { dataDir: join(dir, 'data'), url },
    redis,
    async close() {
      await Promise.all([postgres.close(), closeRedis()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The variables that point a node, or the `gateway` CLI, at the fleet's store and Redis. */
export function backendEnvironment(backends: FleetBackends): Record<string, string> {
  return {
    GATEWAY_DATA_DIR: backends.store.dataDir,
    GATEWAY_DATABASE_URL: backends.store.url,
    ...('url' in backends.redis
      ? { GATEWAY_REDIS_URL: backends.redis.url }
      : { GATEWAY_REDIS_CLUSTER: backends.redis.cluster.join(',') }),
  };
}

/** The fleet's store opened from the test, to read the ledger. */
export function openFleetStore(store: FleetStore): Promise<Store> {
  return openStore({ dataDir: store.dataDir, postgres: { url: store.url, poolSize: 2, connectTimeoutMs: 5000 } });
}
