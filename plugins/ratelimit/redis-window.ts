// The shared backend: RateLimiterRedis on the gateway's one ioredis client, so every node counts in the
// same keys, `${redis.key_prefix}ratelimit:<kind>:<orgId>`. Each operation touches one key in one atomic
// step (a Lua script: SET NX EX + INCRBY + PTTL, also to read, with 0), so it also runs on a Redis
// Cluster through ioredis' Cluster client. If Redis stops answering, each node falls back to its own
// in-memory counters (rate-limiter-flexible's insurance limiter) until it is back: the limits then hold
// per node rather than failing every request.
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { LimiterWindow, UNREACHABLE_POINTS } from './limiter-window.js';
import type { RateWindow } from './window.js';

/** How long the start waits for Redis before giving up (the node does not start without its counters). */
const READY_TIMEOUT_MS = 10_000;

export async function redisWindow(client: Redis, keyPrefix: string, windowSeconds: number): Promise<RateWindow> {
  if (client.status !== 'ready') await once(client, 'ready', { signal: AbortSignal.timeout(READY_TIMEOUT_MS) });
  const limiter = (kind: string): RateLimiterRedis =>
    new RateLimiterRedis({
      storeClient: client,
      keyPrefix: `${keyPrefix}ratelimit:${kind}`,
      points: UNREACHABLE_POINTS,
      duration: windowSeconds,
      // Not ready (reconnecting): go to the insurance limiter at once instead of queueing in ioredis.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({
        keyPrefix: `${kind}-insurance`,
        points: UNREACHABLE_POINTS,
        duration: windowSeconds,
      }),
    });
  return new LimiterWindow(
    { requests: limiter('requests'), input: limiter('input'), output: limiter('output') },
    windowSeconds,
  );
}
