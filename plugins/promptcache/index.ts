// The promptcache plugin: prompt-cache accounting for the message dialect (docs/prompt-caching.md).
// A request whose blocks carry `cache_control` has its marked prefixes looked up in the caller's
// organization's registry (in this process, in the node's primary process when it runs several workers, or in
// Redis so that every node shares it) while the
// upstream works; the usage it reports is then split into cache reads, cache writes per TTL and
// plain input, and the marked prefixes are written back (or refreshed). Without marks, or without a
// caller (no auth plugin), the upstream's usage passes unchanged: its own cached tokens stay reads.
import type { JSONSchemaType } from 'ajv';
import { optional } from '../../config/optional-key.js';
import type { ChatUsage, ResponseEvent } from '../../core/canonical.js';
import type { Exchange } from '../../core/exchange.js';
import { EventStage } from '../../proxy/stream/event-stage.js';
import type { EventStream } from '../../core/event-stream.js';
import type { Plugin } from '../../core/plugin.js';
import { usageOf } from '../../proxy/stream/usage-watch.js';
import { definePlugin } from '../plugin-module.js';
import type { CacheSplit } from './accounting.js';
import { cachePrefixes } from './prefixes.js';
import { PromptCache, type CachePlan } from './prompt-cache.js';
import { RedisRegistry } from './redis-registry.js';
import { MemoryRegistry, type PrefixRegistry } from './registry.js';
import { SharedRegistry } from './shared-registry.js';

interface PromptCacheOptions {
  ttl_5m_ms?: number;
  ttl_1h_ms?: number;
  max_entries?: number;
}

export const optionsSchema: JSONSchemaType<PromptCacheOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ttl_5m_ms: optional({ type: 'integer', minimum: 1 }),
    ttl_1h_ms: optional({ type: 'integer', minimum: 1 }),
    max_entries: optional({ type: 'integer', minimum: 1 }),
  },
};

export const promptCachePlugin = definePlugin<PromptCacheOptions>({
  optionsSchema,
  create(options, context): Plugin {
    const { ttl_5m_ms = 300_000, ttl_1h_ms = 3_600_000, max_entries } = options;
    const countTokens = context.countTokens;
    if (countTokens === undefined)
      throw new Error('the promptcache plugin needs the gateway token counter (context.countTokens)');
    const redis = context.redis();
    const registry: PrefixRegistry =
      redis !== undefined
        ? new RedisRegistry(redis, context.config.redis.key_prefix ?? 'gateway:', context.now)
        : context.shared !== undefined
          ? new SharedRegistry(context.shared, max_entries)
          : new MemoryRegistry({ now: context.now, ...(max_entries !== undefined ? { maxEntries: max_entries } : {}) });
    const cache = new PromptCache({ registry, ttlMs: { '5m': ttl_5m_ms, '1h': ttl_1h_ms }, countTokens });
    return {
      name: 'promptcache',
      async handle(exchange, next) {
        // Only a request whose client marked blocks for caching (the message dialect's cache_control) has them.
        const blocks = exchange.request?.gateway?.cache_blocks;
        if (blocks === undefined) return next();
        const prefixes = cachePrefixes(blocks);
        const orgId = exchange.locals.caller?.orgId;
        if (prefixes === undefined || orgId === undefined) return next();
        // Looked up and counted while the upstream works; a failure leaves the upstream's usage as it is.
        const planning = cache.plan(orgId, prefixes, exchange.signal).catch((error: unknown) => {
          if (!exchange.signal.aborted)
            exchange.log.warn({ err: (error as Error).message }, 'promptcache: no cache accounting for this request');
          return undefined;
        });
        return new CacheAccounting(await next(), planning, cache, exchange, context.now);
      },
    };
  },
});

/** The events with every usage split by the plan; the plan's prefixes are written back at the first usage. */
class CacheAccounting extends EventStage {
  readonly #planning: Promise<CachePlan | undefined>;
  readonly #cache: PromptCache;
  readonly #exchange: Exchange;
  readonly #now: () => number;
  #plan: CachePlan | undefined = undefined;
  #planned = false;

  constructor(
    events: EventStream,
    planning: Promise<CachePlan | undefined>,
    cache: PromptCache,
    exchange: Exchange,
    now: () => number,
  ) {
    super(events);
    this.#planning = planning;
    this.#cache = cache;
    this.#exchange = exchange;
    this.#now = now;
  }

  protected take(event: ResponseEvent): void {
    const usage = usageOf(event);
    if (usage === undefined) {
      this.emit(event);
      return;
    }
    if (this.#planned) {
      this.#account(event, usage);
      return;
    }
    // The first usage waits for the plan (looked up while the upstream worked; usually long done).
    this.#planned = true;
    const planned = this.#planning.then((plan) => {
      this.#plan = plan;
      if (plan !== undefined) this.#register(plan);
    });
    this.hold(planned, () => this.#account(event, usage));
  }

  protected finish(): void {}

  #register(plan: CachePlan): void {
    const exchange = this.#exchange;
    this.#cache.registry
      .register(plan.orgId, plan.entries(this.#now()))
      .catch((error: unknown) =>
        exchange.log.warn({ err: (error as Error).message }, 'promptcache: the prefixes could not be registered'),
      );
  }

  #account(event: ResponseEvent, usage: ChatUsage): void {
    const plan = this.#plan;
    if (plan === undefined) {
      this.emit(event);
      return;
    }
    const split = plan.split(usage.prompt_tokens, usage.prompt_tokens_details?.cached_tokens ?? 0);
    this.#exchange.logFields.cache_read = split.read;
    this.#exchange.logFields.cache_write = split.write5m + split.write1h;
    this.emit(withSplit(event, usage, split));
  }
}

/** The event (a chunk or a completion) with its usage split. */
function withSplit(event: ResponseEvent, usage: ChatUsage, split: CacheSplit): ResponseEvent {
  const details = {
    ...usage.prompt_tokens_details,
    cached_tokens: split.read,
    cache_creation: { ephemeral_5m_input_tokens: split.write5m, ephemeral_1h_input_tokens: split.write1h },
  };
  const splitUsage = { ...usage, prompt_tokens_details: details };
  if (event.type === 'chunk') return { ...event, chunk: { ...event.chunk, usage: splitUsage } };
  if (event.type === 'completion') return { ...event, completion: { ...event.completion, usage: splitUsage } };
  return event;
}
