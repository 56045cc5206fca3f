// The one place that connects to Redis: one server (`redis.url`) through ioredis' `Redis`, or a Redis
// Cluster (`redis.cluster`, seed URLs) through its `Cluster`. Every Redis user (rate-limit counters,
// revocations, the prompt-cache registry, the e-mail lock) takes the `RedisClient` this makes, and
// every command on it is bounded in time: a server or a master that is gone costs a request at most
// COMMAND_TIMEOUT_MS, never a hang; the users then carry on without Redis (each says how).
import { hostname } from 'node:os';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

/** Where Redis is: one server's URL, or the seed URLs of a cluster (any of its masters). */
export type RedisTarget = { url: string } | { cluster: readonly string[] };

/**
 * The longest a command may take, from when it is sent to the answer, redirections and retries
 * included, before it fails (and its caller falls back). A backstop for a server that stops answering
 * without closing its connections; a master that is gone fails a command sooner (see CLUSTER_RETRY).
 */
export const COMMAND_TIMEOUT_MS = 2000;

/**
 * A Cluster's retries of a command whose master is gone: ioredis retries a command that met a closed
 * connection (or CLUSTERDOWN) every retryDelay ms, refreshing its slot map, up to maxRedirections
 * times. A lost master (without a replica to take over) stays lost for these retries, so they are few
 * and quick: such a command fails after about maxRedirections × retryDelay ms. A moved slot needs
 * one redirection, rarely two.
 */
const CLUSTER_RETRY = { maxRedirections: 4, retryDelay: 50 };

export interface RedisClientOptions {
  /** Batches the commands of one event-loop tick into one round trip (per master on a cluster). */
  autoPipelining?: boolean;
  /** Connect on `connect()` (or the first command) rather than at once. */
  lazyConnect?: boolean;
}

export function createRedisClient(target: RedisTarget, options: RedisClientOptions = {}): RedisClient {
  const common = {
    enableAutoPipelining: options.autoPipelining ?? false,
    lazyConnect: options.lazyConnect ?? false,
  };
  // What CLIENT LIST shows for this process's connections (a Cluster's prefixed with their role).
  const connectionName = `gateway:${hostname()}:${process.pid}`;
  // A command sent while the server is away waits in the client's queue, where its timeout runs too.
  if ('url' in target) return new Redis(target.url, { ...common, connectionName, commandTimeout: COMMAND_TIMEOUT_MS });
  const seeds = target.cluster.map((url) => new URL(url));
  const clusterOptions: ClusterOptions = {
    ...common,
    // A Cluster's own queue (while no master answers at all) has no timeout: refuse at once instead.
    enableOfflineQueue: false,
    // Its ready check asks CLUSTER INFO of one master picked at random, the pool's lost master as well:
    // then a node (or the CLI) would fail to connect one time in three while a master is lost.
    enableReadyCheck: false,
    // Every command on the master of its slot: a script's reads and writes are one atomic step.
    scaleReads: 'master',
    // While no seed answers, try again every 0.2 s at first, then every 2 s.
    clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
    maxRedirections: CLUSTER_RETRY.maxRedirections,
    retryDelayOnFailover: CLUSTER_RETRY.retryDelay,
    retryDelayOnClusterDown: CLUSTER_RETRY.retryDelay,
    retryDelayOnTryAgain: CLUSTER_RETRY.retryDelay,
    redisOptions: { ...credentialsOf(seeds), connectionName, commandTimeout: COMMAND_TIMEOUT_MS },
  };
  return new Cluster(
    seeds.map((seed) => ({ host: seed.hostname, port: seed.port === '' ? 6379 : Number(seed.port) })),
    clusterOptions,
  );
}

/** Whether the client is connected (to every master it knows, for a cluster): a check for `/ready`. */
export function redisReady(client: RedisClient): boolean {
  return client.status === 'ready';
}

/** How an error names the target: the URL, or the seeds. */
export function describeRedisTarget(target: RedisTarget): string {
  return 'url' in target ? target.url : `the Redis Cluster at ${target.cluster.join(', ')}`;
}

/** The masters' user, password and TLS: one for them all, from the seeds (the first that has each). */
function credentialsOf(seeds: URL[]): RedisOptions {
  const options: RedisOptions = {};
  const username = seeds.find((seed) => seed.username !== '')?.username;
  const password = seeds.find((seed) => seed.password !== '')?.password;
  if (username !== undefined) options.username = decodeURIComponent(username);
  if (password !== undefined) options.password = decodeURIComponent(password);
  if (seeds.some((seed) => seed.protocol === 'rediss:')) options.tls = {};
  return options;
}
