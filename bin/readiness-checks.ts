// What GET /ready checks on this node (proxy/node/readiness.ts), each against the least it needs, so that
// another store or Redis client plugs in unchanged.
import type { ReadinessCheck } from '../proxy/node/readiness.js';

/** The store answers a query (a round trip to its database); unready when the query fails or hangs. */
export function storeCheck(ping: () => Promise<unknown>): ReadinessCheck {
  return { name: 'store', probe: ping };
}

/** Every Redis connection the node holds is up (a Cluster's: it reaches its masters, one lost master apart). */
export function redisCheck(connected: () => boolean): ReadinessCheck {
  return {
    name: 'redis',
    probe() {
      if (!connected()) throw new Error('a Redis connection is down');
    },
  };
}

/**
 * Some upstream replica answers its health endpoint (`server.ready_checks_upstream`); unready while none does:
 * `healthy` probes them now, or reads what the active health checks last found.
 */
export function upstreamCheck(healthy: () => unknown): ReadinessCheck {
  return { name: 'upstream', probe: healthy };
}
