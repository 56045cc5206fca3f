import type { Redis } from 'ioredis';
import type { GatewayConfig } from '../config/types.js';
import type { LimitNotifier } from '../notify/notifier.js';
import type { RevocationBus } from '../store/revocations.js';
import type { Store } from '../store/store.js';
import type { ChatRequest, JsonObject, ResponseEvent } from './canonical.js';
import type { Exchange } from './exchange.js';

/** The response side of the chain: canonical events, produced lazily as the upstream sends them (a non-streamed call's: one completion). */
export type EventStream = AsyncIterable<ResponseEvent>;

/** Calls the rest of the chain (and finally the upstream). A plugin may call it more than once (search loops). */
export type Next = () => Promise<EventStream>;

/**
 * A plugin has up to two hooks, both optional:
 * - `onRequest` runs for every API route before the body is read (auth, request counting);
 * - `handle` wraps the upstream call of generation routes as an onion: it may change `exchange.request`
 *   on the way in, answer early by throwing a GatewayError, and on the way out watch the events
 *   (`observe`, proxy/observe.ts) or change them (a generator of its own).
 */
export interface Plugin {
  readonly name: string;
  onRequest?(exchange: Exchange): void | Promise<void>;
  handle?(exchange: Exchange, next: Next): Promise<EventStream>;
  /**
   * Shapes a count_tokens request the way `handle` shapes a generation request before the upstream
   * (tools or notes it adds, replayed content it restores), so the count is the real request's.
   */
  prepareCount?(request: ChatRequest): void;
  close?(): void | Promise<void>;
}

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
  /** The shared Redis client when `redis.url` is set (rate-limit counters), else undefined. */
  redis(): Redis | undefined;
  /** Tells an organization's members that output tokens block it (e-mail, at most hourly). */
  readonly notifier: LimitNotifier;
  /** The gateway's token counter (the one count_tokens uses): a canonical request's prompt tokens, exactly as the upstream will count them. */
  countTokens?(request: ChatRequest, signal?: AbortSignal): Promise<number>;
  /** The clock (Unix ms) that plugins' caches expire by: Date.now, or a test's own. */
  readonly now: () => number;
}

/** What a plugin module exports: a factory and the JSON Schema of its options (checked once, at load). */
export interface PluginModule {
  readonly optionsSchema?: JsonObject;
  /** Built-in plugins that must come earlier in the chain (the meter bills the caller auth finds). */
  readonly after?: readonly string[];
  create(options: JsonObject, context: PluginContext): Plugin | Promise<Plugin>;
}
