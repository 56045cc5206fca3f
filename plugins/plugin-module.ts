// What a plugin module is to the gateway that loads it (plugins/load-plugins.ts): a factory, the JSON
// Schema of its options, the plugins it must follow; and what the factory gets: the configuration and
// the process's shared services. The chain itself only knows the Plugin it returns (core/plugin.ts).
import type { AnySchema, JSONSchemaType } from 'ajv';
import type { GatewayConfig } from '../config/types.js';
import type { LimitNotifier } from '../notify/notifier.js';
import type { ChatRequest, JsonObject } from '../core/canonical.js';
import type { Plugin } from '../core/plugin.js';
import type { SharedObjects } from '../core/shared-objects.js';
import type { RedisClient } from '../store/redis-client.js';
import type { RevocationBus } from '../store/revocations.js';
import type { Store } from '../store/store.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';

export interface PluginContext {
  /** The whole configuration (plugins read their sections: limits, pricing, redis, mail). */
  readonly config: Readonly<GatewayConfig>;
  /** The public model id the gateway serves. */
  readonly modelId: string;
  /** The data directory (config `data_dir`), resolved: where the store lives. */
  readonly dataDir: string;
  /** Resolves a path written in the config file relative to that file's folder. */
  resolvePath(path: string): string;
  /** The store in the data directory, opened once per process on first call and closed by the gateway. */
  store(): Promise<Store>;
  /** Where key revocations are announced (to every node, with Redis). */
  readonly revocations: RevocationBus;
  /** The shared Redis (or Redis Cluster) client when `redis.url` or `redis.cluster` is set, else undefined. */
  redis(): RedisClient | undefined;
  /** Tells an organization's members that output tokens block it (e-mail, at most hourly). */
  readonly notifier: LimitNotifier;
  /** The gateway's token counter (the one count_tokens uses): a canonical request's prompt tokens, exactly as the upstream will count them. */
  countTokens?(request: ChatRequest, signal?: AbortSignal): Promise<number>;
  /** The node's metrics when they are on (`metrics.port`), else undefined: then a plugin records nothing. */
  readonly metrics: GatewayMetrics | undefined;
  /** The clock (Unix ms) that plugins' caches expire by: Date.now, or a test's own. */
  readonly now: () => number;
  /**
   * The objects the node's primary process holds for all its workers (`server.workers` > 1), for state that
   * must be the node's and not a worker's where no Redis holds it; undefined in a node of one process.
   */
  readonly shared?: SharedObjects;
}

/** What a plugin module exports: a factory and the JSON Schema of its options (checked once, at load). */
export interface PluginModule {
  readonly optionsSchema?: AnySchema;
  /** Built-in plugins that must come earlier in the chain (the meter bills the caller auth finds). */
  readonly after?: readonly string[];
  create(options: JsonObject, context: PluginContext): Plugin | Promise<Plugin>;
}

/** What a plugin module may export besides its factory; any other name is refused at load (a misplaced or misspelt hook). */
export const MODULE_EXPORTS: readonly string[] = ['create', 'optionsSchema', 'after', 'default'];

/** A plugin module whose options are typed by its schema: `create` gets them checked, as `Options`. */
export interface PluginDefinition<Options> {
  readonly optionsSchema: JSONSchemaType<Options>;
  readonly after?: readonly string[];
  create(options: Options, context: PluginContext): Plugin | Promise<Plugin>;
}

export function definePlugin<Options>(definition: PluginDefinition<Options>): PluginModule {
  return {
    optionsSchema: definition.optionsSchema,
    ...(definition.after !== undefined ? { after: definition.after } : {}),
    // The loader checked the options against optionsSchema before this call, so they are an `Options`.
    create: (options, context) => definition.create(options as Options, context),
  };
}
