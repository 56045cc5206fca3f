// Revocations over Redis pub/sub: one channel, the key id as the message. A node delivers its own
// revocations locally at once (so Redis being down never delays them here) and publishes them for the
// others; its subscriber hears its own message too, which only drops an entry already dropped.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LocalRevocationBus } from './revocations.js';

export interface RedisRevocationOptions {
  url: string;
  /** Prefix of the channel name, shared by every node (config `redis.key_prefix`). */
  prefix: string;
  log?: Logger;
}

export class RedisRevocationBus extends LocalRevocationBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;

  private constructor(options: RedisRevocationOptions) {
    super();
    this.channel = `${options.prefix}keys:revoked`;
    // Commands wait (queued) while Redis is away and ioredis reconnects; a revocation is never dropped here.
    this.publisher = new Redis(options.url, { lazyConnect: true });
    this.subscriber = new Redis(options.url, { lazyConnect: true });
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) => options.log?.warn({ err: error.message }, 'redis: revocation channel error (reconnecting)'));
    }
    this.subscriber.on('message', (channel: string, keyId: string) => {
      if (channel === this.channel) this.deliver(keyId);
    });
  }

  /** Connects both clients and subscribes before returning, so no revocation after start is missed. */
  static async connect(options: RedisRevocationOptions): Promise<RedisRevocationBus> {
    const bus = new RedisRevocationBus(options);
    try {
      await Promise.all([bus.publisher.connect(), bus.subscriber.connect()]);
      await bus.subscriber.subscribe(bus.channel);
    } catch (error) {
      bus.publisher.disconnect();
      bus.subscriber.disconnect();
      throw new Error(`redis ${options.url}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return bus;
  }

  override async publish(keyId: string): Promise<void> {
    this.deliver(keyId);
    await this.publisher.publish(this.channel, keyId);
  }

  override async close(): Promise<void> {
    await super.close();
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }
}
