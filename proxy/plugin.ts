// The core's plugin contract: what the chain runs. How a plugin is made at start (its module, its
// options, the services it gets) is the plugins' side: plugins/plugin-module.ts.
import type { ChatRequest, ResponseEvent } from './canonical.js';
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
