import type { ChatRequest } from '../../core/canonical.js';
import type { Exchange } from '../../core/exchange.js';
import { streamOf } from '../stream/event-bridges.js';
import type { EventStream } from '../../core/event-stream.js';
import type { Plugin } from '../../core/plugin.js';

export type Handler = (exchange: Exchange) => Promise<EventStream>;

/** The chain, fixed at start: the request hooks in order, and the onion of `handle` hooks around the terminal. */
export interface Chain {
  readonly onRequest: ReadonlyArray<(exchange: Exchange) => void | Promise<void>>;
  /** The hooks run on a WebSocket upgrade, in order. */
  readonly onConnect: ReadonlyArray<(exchange: Exchange) => void | Promise<void>>;
  readonly generate: Handler;
  /** What the plugins add to a request before the upstream, applied to count_tokens requests in order. */
  readonly prepareCount: ReadonlyArray<(request: ChatRequest) => void>;
}

export function composeChain(plugins: readonly Plugin[], terminal: Handler): Chain {
  const onRequest = plugins.flatMap((plugin) => (plugin.onRequest ? [plugin.onRequest.bind(plugin)] : []));
  const onConnect = plugins.flatMap((plugin) => (plugin.onConnect ? [plugin.onConnect.bind(plugin)] : []));
  let generate = terminal;
  for (const plugin of [...plugins].reverse()) {
    if (!plugin.handle) continue;
    const handle = plugin.handle.bind(plugin);
    const inner = generate;
    generate = async (exchange) => streamOf(await handle(exchange, () => inner(exchange)));
  }
  const prepareCount = plugins.flatMap((plugin) => (plugin.prepareCount ? [plugin.prepareCount.bind(plugin)] : []));
  return { onRequest, onConnect, generate, prepareCount };
}
