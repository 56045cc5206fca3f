// What the gateway's parts share in one process: the store (opened on first use, so a gateway without
// auth never loads SQLite), the revocation bus (over Redis when `redis.url` or `redis.cluster` is set),
// one Redis client for shared counters, and the notifier.
import type { Logger } from 'pino';
import { ConfigError } from '../config/errors.js';
import { loadWebhookKey } from '../config/webhook-key.js';
import type { GatewayConfig } from '../config/types.js';
import { LogNotifier } from '../notify/log-notifier.js';
import type { LimitNotifier } from '../notify/notifier.js';
import type { RedisClient, RedisTarget } from '../store/redis-client.js';
import { LocalRevocationBus, type RevocationBus } from '../store/revocations.js';
import type { Store, StoreOptions } from '../store/store.js';

export interface Services {
  store(): Promise<Store>;
  /** One shared Redis (or Redis Cluster) client, auto-pipelined, when Redis is configured, else undefined; connected on first call. */
  redis(): RedisClient | undefined;
  /** Whether the shared Redis client and the revocation bus are connected (true without Redis): a check of /ready. */
  redisConnected(): boolean;
  readonly revocations: RevocationBus;
  readonly notifier: LimitNotifier;
  /** The key that seals webhook signing secrets in the store (config/webhook-key.ts), loaded on first call. */
  webhookKey(): Promise<Buffer>;
  close(): Promise<void>;
}

export interface ServicesOptions {
  log?: Logger;
  /** The revocation bus when the caller has its own (a worker's, through the node's primary); else Redis's or this process's. */
  revocations?: RevocationBus;
}

/** `storeOptions`: where the store is (services/store-options.ts reads them from the config). */
export async function openServices(
  config: GatewayConfig,
  storeOptions: StoreOptions,
  options: ServicesOptions = {},
): Promise<Services> {
  const { log } = options;
  const target = redisTargetOf(config);
  // Loaded only with Redis: ioredis is about 7 MB of resident memory that a node alone never uses.
  const redisClient = target === undefined ? undefined : await import('../store/redis-client.js');
  const revocations = options.revocations ?? (await openRevocationBus(config, log));
  // The notifier reads the store and Redis through the services, when a notice comes.
  const notifier = await openNotifier(config, { store: () => services.store(), redis: () => services.redis(), log });
  let opened: Promise<Store> | undefined;
  let webhookKey: Promise<Buffer> | undefined;
  let client: RedisClient | undefined;
  const services: Services = {
    redis() {
      if (target === undefined || redisClient === undefined) return undefined;
      if (client === undefined) {
        client = redisClient.createRedisClient(target, { autoPipelining: true });
        client.on('error', (error: Error) => log?.warn({ err: error.message }, 'redis: error (reconnecting)'));
      }
      return client;
    },
    redisConnected() {
      const shared = services.redis();
      const sharedReady = shared === undefined || redisClient === undefined || redisClient.redisReady(shared);
      return sharedReady && revocations.connected();
    },
    revocations,
    notifier,
    webhookKey() {
      webhookKey ??= loadWebhookKey(storeOptions.dataDir);
      return webhookKey;
    },
    store() {
      opened ??= import('../store/store.js').then(({ openStore }) => openStore(storeOptions));
      return opened;
    },
    async close() {
      await notifier.close();
      await revocations.close();
      await client?.quit().catch(() => undefined);
      if (opened !== undefined) await (await opened.catch(() => undefined))?.close();
    },
  };
  return services;
}

/** E-mail (nodemailer, loaded only then) when `mail.url` is set; else notices go to the log. */
async function openNotifier(
  config: GatewayConfig,
  parts: { store(): Promise<Store>; redis(): RedisClient | undefined; log: Logger | undefined },
): Promise<LimitNotifier> {
  if (config.mail.url === undefined) return new LogNotifier(parts.log);
  const { MailNotifier } = await import('../notify/mail-notifier.js');
  return new MailNotifier({
    url: config.mail.url,
    from: config.mail.from,
    store: parts.store,
    redis: parts.redis,
    keyPrefix: config.redis.key_prefix ?? 'gateway:',
    ...(parts.log ? { log: parts.log } : {}),
  });
}

/** The bus revocations travel on: Redis pub/sub with Redis configured, this process alone without. */
export async function openRevocationBus(config: GatewayConfig, log?: Logger): Promise<RevocationBus> {
  const target = redisTargetOf(config);
  if (target === undefined) return new LocalRevocationBus();
  const { RedisRevocationBus } = await import('../store/redis-revocations.js');
  try {
    return await RedisRevocationBus.connect({
      target,
      prefix: config.redis.key_prefix ?? 'gateway:',
      ...(log ? { log } : {}),
    });
  } catch (error) {
    throw new ConfigError(`${'url' in target ? 'redis.url' : 'redis.cluster'}: ${(error as Error).message}`);
  }
}

/** Whether Redis is configured (`redis.url` or `redis.cluster`): then it holds what the nodes share. */
export function hasRedis(config: GatewayConfig): boolean {
  return redisTargetOf(config) !== undefined;
}

/** Where the configured Redis is: one server (`redis.url`), a cluster's seeds (`redis.cluster`), or none. */
function redisTargetOf(config: GatewayConfig): RedisTarget | undefined {
  if (config.redis.cluster !== undefined) return { cluster: config.redis.cluster };
  if (config.redis.url !== undefined) return { url: config.redis.url };
  return undefined;
}
