import type { Exchange } from './exchange.js';
import type { EventStream, Plugin } from './plugin.js';

export type Handler = (exchange: Exchange) => Promise<EventStream>;

/** The chain, fixed at start: the request hooks in order, and the onion of `handle` hooks around the terminal. */
export interface Chain {
  readonly onRequest: ReadonlyArray<(exchange: Exchange) => void | Promise<void>>;
  readonly generate: Handler;
}

export function composeChain(plugins: readonly Plugin[], terminal: Handler): Chain {
  const onRequest = plugins.flatMap((plugin) => (plugin.onRequest ? [plugin.onRequest.bind(plugin)] : []));
  let generate = terminal;
  for (const plugin of [...plugins].reverse()) {
    if (!plugin.handle) continue;
    const handle = plugin.handle.bind(plugin);
    const inner = generate;
    generate = (exchange) => handle(exchange, () => inner(exchange));
  }
  return { onRequest, generate };
}
