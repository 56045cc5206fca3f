// What the gateway's parts share in one process: the store (opened on first use, so a gateway without
// auth never loads SQLite) and the revocation bus (over Redis when `redis.url` is set).
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import type { GatewayConfig } from '../config/types.js';
import { LogNotifier } from '../notify/log-notifier.js';
import type { LimitNotifier } from '../notify/notifier.js';
import { LocalRevocationBus, type RevocationBus } from '../store/revocations.js';
import type { Store } from '../store/store.js';

export interface Services {
  store(): Promise<Store>;
  readonly revocations: RevocationBus;
  readonly notifier: LimitNotifier;
  close(): Promise<void>;
}

export async function openServices(config: GatewayConfig, dataDir: string, log?: Logger): Promise<Services> {
  const revocations = await openRevocationBus(config, log);
  const notifier = new LogNotifier(log);
  let opened: Promise<Store> | undefined;
  return {
    revocations,
    notifier,
    store() {
      opened ??= import('../store/store.js').then(({ openStore }) => openStore({ dataDir }));
      return opened;
    },
    async close() {
      await notifier.close();
      await revocations.close();
      if (opened !== undefined) await (await opened.catch(() => undefined))?.close();
    },
  };
}

/** The bus revocations travel on: Redis pub/sub with `redis.url`, this process alone without. */
export async function openRevocationBus(config: GatewayConfig, log?: Logger): Promise<RevocationBus> {
  if (config.redis.url === undefined) return new LocalRevocationBus();
  const { RedisRevocationBus } = await import('../store/redis-revocations.js');
  try {
    return await RedisRevocationBus.connect({ url: config.redis.url, prefix: config.redis.key_prefix ?? 'gateway:', ...(log ? { log } : {}) });
  } catch (error) {
    throw new ConfigError(`redis.url: ${(error as Error).message}`);
  }
}
