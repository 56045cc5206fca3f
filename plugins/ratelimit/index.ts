// The ratelimit plugin: per-organization limits by tier (spec §8), after `auth` in the chain. Options:
// `backend` (auto: Redis when `redis.url` or `redis.cluster` is set, else in the node: in-process, or in the primary
// process when the node runs several workers; memory; redis) and `tier_cache_ms`
// (how long a node trusts an organization's tier, so that requests cost no store read).
import type { JSONSchemaType } from 'ajv';
import { ConfigError } from '../../config/errors.js';
import { optional } from '../../config/optional-key.js';
import { tiersOf } from '../../limits/tiers.js';
import type { Plugin } from '../../core/plugin.js';
import { definePlugin, type PluginContext } from '../plugin-module.js';
import { RateLimitHeaders } from './headers.js';
import { MemoryWindow } from './memory-window.js';
import { RateLimiter } from './rate-limiter.js';
import { redisWindow } from './redis-window.js';
import { SharedWindow } from './shared-window.js';
import { TierCache, type Standing } from './tier-cache.js';
import type { RateWindow } from './window.js';

interface RateLimitOptions {
  backend?: 'auto' | 'memory' | 'redis';
  tier_cache_ms?: number;
}

export const optionsSchema: JSONSchemaType<RateLimitOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    backend: optional({ type: 'string', enum: ['auto', 'memory', 'redis'] }),
    tier_cache_ms: optional({ type: 'integer', minimum: 0, maximum: 10000 }),
  },
};

export const rateLimitPlugin = definePlugin<RateLimitOptions>({
  optionsSchema,
  async create(options, context): Promise<Plugin> {
    const { backend = 'auto', tier_cache_ms: tierCacheMs = 1500 } = options;
    const limits = context.config.limits;
    // Windows are whole seconds (Redis expiries are); the schema's minimum is one.
    const windowSeconds = Math.max(1, Math.floor(limits.window_ms / 1000));
    const standing = async (orgId: string): Promise<Standing | undefined> => {
      const org = await (await context.store()).orgs.find(orgId);
      return org && { spentMicros: org.spentMicros, balanceMicros: org.balanceMicros };
    };
    return new RateLimiter({
      window: await openWindow(backend, context, windowSeconds),
      tiers: new TierCache(standing, tiersOf(limits.tiers), tierCacheMs, context.now),
      headers: new RateLimitHeaders(limits.header_prefix),
      notifier: context.notifier,
      metrics: context.metrics,
      now: context.now,
    });
  },
});

async function openWindow(
  backend: NonNullable<RateLimitOptions['backend']>,
  context: PluginContext,
  windowSeconds: number,
): Promise<RateWindow> {
  const client = backend === 'memory' ? undefined : context.redis();
  if (client === undefined && backend === 'redis')
    throw new ConfigError(
      "plugin ratelimit: backend 'redis' needs redis.url or redis.cluster (or GATEWAY_REDIS_URL, GATEWAY_REDIS_CLUSTER)",
    );
  if (client === undefined)
    return context.shared === undefined
      ? new MemoryWindow(windowSeconds, context.now)
      : new SharedWindow(context.shared, windowSeconds);
  try {
    return await redisWindow(client, context.config.redis.key_prefix ?? 'gateway:', windowSeconds, context.now);
  } catch (error) {
    const key = context.config.redis.cluster === undefined ? 'redis.url' : 'redis.cluster';
    throw new ConfigError(
      `${key}: the rate limiter cannot reach Redis: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
