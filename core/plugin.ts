// The core's plugin contract: what the chain runs. How a plugin is made at start (its module, its
// options, the services it gets) is the plugins' side: plugins/plugin-module.ts.
import type { PluginCapabilities } from './capabilities.js';
import type { ChatRequest, ResponseEvent } from './canonical.js';
import type { EventStream } from './event-stream.js';
import type { Exchange } from './exchange.js';

/** The response side a plugin's `handle` gets from `next` and returns: core/event-stream.ts. */
export type { EventStream } from './event-stream.js';

/** Calls the rest of the chain (and finally the upstream). A plugin may call it more than once (search loops). */
export type Next = () => Promise<EventStream>;

/**
 * A plugin has these hooks, all optional:
 * - `onRequest` runs for every API route before the body is read (auth, request counting), and for every
 *   request message on a WebSocket;
 * - `onConnect` runs once when a client opens a WebSocket, on the upgrade request, before the switch
 *   (auth: a bad key gets its 401 as the upgrade's answer);
 * - `handle` wraps the upstream call of generation routes as an onion: it may change `exchange.request`
 *   on the way in, answer early by throwing a GatewayError, and on the way out watch the events
 *   (`observe`, proxy/stream/observe.ts) or change them (a stage of its own, proxy/stream/event-stage.ts).
 */
export interface Plugin {
  readonly name: string;
  onRequest?(exchange: Exchange): void | Promise<void>;
  onConnect?(exchange: Exchange): void | Promise<void>;
  /** Returns the events: a push stream (a stage, `observe`), or any async iterable of them (an async generator: simpler, and every event crosses a promise). */
  handle?(exchange: Exchange, next: Next): Promise<EventStream | AsyncIterable<ResponseEvent>>;
  /**
   * Shapes a count_tokens request the way `handle` shapes a generation request before the upstream
   * (tools or notes it adds, replayed content it restores), so the count is the real request's.
   */
  prepareCount?(request: ChatRequest): void;
  close?(): void | Promise<void>;
  /** What the plugin offers the rest of the node by name (core/capabilities.ts): the console reads `ratelimit.windowUse`. */
  readonly capabilities?: Partial<PluginCapabilities>;
}

/** The hooks a plugin may have, in one list: a plugin with any other function is refused at load (a misspelt hook). */
export const PLUGIN_HOOKS: readonly string[] = ['onRequest', 'onConnect', 'handle', 'prepareCount', 'close'];
