// Revocations over Redis pub/sub: one channel, the key id as the message. A node delivers its own
// revocations locally at once (so Redis being down never delays them here) and publishes them for the
// others; its subscriber hears its own message too, which only drops an entry already dropped. On a
// Redis Cluster, a message published on any master reaches the subscribers of every master (PUBLISH is
// broadcast over the cluster bus), so each node subscribes on one master of its choosing, and on another
// if that one is lost.
import type { Logger } from 'pino';
import { createRedisClient, describeRedisTarget, type RedisClient, type RedisTarget } from './redis-client.js';
import { LocalRevocationBus } from './revocations.js';

export interface RedisRevocationOptions {
  target: RedisTarget;
  /** Prefix of the channel name, shared by every node (config `redis.key_prefix`). */
  prefix: string;
  log?: Logger;
}

export class RedisRevocationBus extends LocalRevocationBus {
  private readonly publisher: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly channel: string;
  private readonly log: Logger | undefined;

  private constructor(options: RedisRevocationOptions) {
    super();
    this.channel = `${options.prefix}keys:revoked`;
    this.log = options.log;
    // ioredis reconnects and resubscribes on its own (a Cluster on another master when its master is lost);
    // what is published while a node is cut off reaches it through its cache TTL instead.
    this.publisher = createRedisClient(options.target, { lazyConnect: true });
    this.subscriber = createRedisClient(options.target, { lazyConnect: true });
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) =>
        this.log?.warn({ err: error.message }, 'redis: revocation channel error (reconnecting)'),
      );
    }
    this.subscriber.on('message', (channel: string, keyId: string) => {
      if (channel !== this.channel) return;
      this.deliver(keyId);
      this.log?.debug({ keyId }, "redis: revocation heard and delivered to this node's listeners");
    });
  }

  /** Connects both clients and subscribes before returning, so no revocation after start is missed. */
  static async connect(options: RedisRevocationOptions): Promise<RedisRevocationBus> {
    const bus = new RedisRevocationBus(options);
    // ioredis rejects connect() with "Connection is closed"; the 'error' event has the cause worth showing.
    let cause: Error | undefined;
    const remember = (error: Error): void => {
      cause ??= error;
    };
    bus.publisher.once('error', remember);
    try {
      await Promise.all([bus.publisher.connect(), bus.subscriber.connect()]);
      await bus.subscriber.subscribe(bus.channel);
    } catch (error) {
      bus.publisher.disconnect();
      bus.subscriber.disconnect();
      throw new Error(
        `cannot reach Redis at ${describeRedisTarget(options.target)}: ${(cause ?? (error as Error)).message}`,
        {
          cause: error,
        },
      );
    } finally {
      bus.publisher.off('error', remember);
    }
    return bus;
  }

  /**
   * Never fails: the revocation is already in the store, so if Redis cannot take the message within
   * COMMAND_TIMEOUT_MS (2 s) the other nodes still drop the key when their cache entry expires (at most 5 s).
   */
  override async publish(keyId: string): Promise<void> {
    this.deliver(keyId);
    try {
      await this.publisher.publish(this.channel, keyId);
    } catch (error) {
      this.log?.warn(
        { err: (error as Error).message, keyId },
        'redis: revocation not announced; other nodes drop the key within their auth cache TTL',
      );
    }
  }

  override connected(): boolean {
    return this.publisher.status === 'ready' && this.subscriber.status === 'ready';
  }

  override async close(): Promise<void> {
    await super.close();
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }
}
