// What GET /ready checks on this node (proxy/readiness.ts), each against the least it needs, so that
// another store or Redis client plugs in unchanged.
import type { ReadinessCheck } from '../proxy/readiness.js';

/** The store answers a query (a round trip to its database); unready when the query fails or hangs. */
export function storeCheck(ping: () => Promise<unknown>): ReadinessCheck {
  return { name: 'store', probe: ping };
}

/** Every Redis connection the node holds is up (ioredis' `status` is 'ready'). */
export function redisCheck(connected: () => boolean): ReadinessCheck {
  return {
    name: 'redis',
    probe() {
      if (!connected()) throw new Error('a Redis connection is down');
    },
  };
}

/** Whether an ioredis client (a Redis or a Cluster) is connected; a node that never made one has none down. */
export function clientReady(client: { readonly status: string } | undefined): boolean {
  return client === undefined || client.status === 'ready';
}
