// The search plugin (built-in `search`): server-side web search for the message and responses
// dialects (spec rule 6). When the canonical request carries `web_search`, the model is offered a
// search function; its calls are run here with the configured provider and fed back, in a loop inside
// the one client request (search-loop.ts), and the dialects render the searches and the citations.
// Replayed search results are verified and restored as context (replay.ts). Executed searches are
// counted in `exchange.locals.searches` for the meter (errored ones are not).
import type { JSONSchemaType } from 'ajv';
import { optional } from '../../config/optional-key.js';
import type { ChatRequest, SearchContextSize, WebSearchOptions } from '../../core/canonical.js';
import { streamOf } from '../../proxy/stream/event-bridges.js';
import type { Plugin } from '../../core/plugin.js';
import { definePlugin } from '../plugin-module.js';
import { offerSearch } from './offer.js';
import { createSearchProvider, searchProviderOptionsSchema, type SearchProviderOptions } from './providers/index.js';
import { DEFAULT_TIMEOUT_MS } from './providers/options.js';
import { restoreReplay } from './replay.js';
import { Sealer } from './sealer.js';
import { SearchMetrics } from './search-metrics.js';
import { searchLoop, type SearchSetup } from './search-loop.js';
import { loadSearchSecret } from './secret.js';
import { DEFAULT_CONTEXT_SIZES, SourceBook, type ContextSize } from './sources.js';

declare module '../../core/exchange.js' {
  interface ExchangeLocals {
    /** Searches the search plugin ran for this request; `executed` ones are billed (errored ones are not). */
    searches: { executed: number };
  }
}

export interface SearchPluginOptions extends SearchProviderOptions {
  /** The variable holding the secret that seals results; default GATEWAY_SEARCH_SECRET (unset: a file in the data directory). */
  secret_env?: string;
  /** Results per search and characters of them the model reads, per `search_context_size` (the message dialect uses medium). */
  context_sizes?: Partial<Record<SearchContextSize, Partial<ContextSize>>>;
}

const contextSize: JSONSchemaType<Partial<ContextSize>> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    results: optional({ type: 'integer', minimum: 1, maximum: 50 }),
    chars: optional({ type: 'integer', minimum: 500, maximum: 200_000 }),
  },
};

export const optionsSchema: JSONSchemaType<SearchPluginOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...searchProviderOptionsSchema.properties,
    secret_env: optional({ type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    context_sizes: optional({
      type: 'object',
      additionalProperties: false,
      properties: { low: optional(contextSize), medium: optional(contextSize), high: optional(contextSize) },
    }),
  },
};

export const searchPlugin = definePlugin<SearchPluginOptions>({
  optionsSchema,
  async create(raw, context): Promise<Plugin> {
    const {
      secret_env: secretEnv = 'GATEWAY_SEARCH_SECRET',
      context_sizes: sizeOptions = {},
      ...providerOptions
    } = raw;
    const sealer = new Sealer(await loadSearchSecret(process.env, secretEnv, context.dataDir));
    const provider = await createSearchProvider(providerOptions, { resolvePath: context.resolvePath });
    const timeoutMs = providerOptions.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const metrics = context.metrics === undefined ? undefined : new SearchMetrics(context.metrics, provider.name);
    const sizes: Record<SearchContextSize, ContextSize> = {
      low: { ...DEFAULT_CONTEXT_SIZES.low, ...sizeOptions.low },
      medium: { ...DEFAULT_CONTEXT_SIZES.medium, ...sizeOptions.medium },
      high: { ...DEFAULT_CONTEXT_SIZES.high, ...sizeOptions.high },
    };
    /**
     * Turns the search fields into an ordinary chat request, as the upstream gets it: replayed turns
     * verified and restored, the search function and note offered. Undefined when there are none.
     */
    const prepare = (
      request: ChatRequest,
    ): { options: WebSearchOptions | undefined; size: ContextSize; book: SourceBook } | undefined => {
      const gateway = request.gateway;
      const options = gateway?.web_search;
      const replay = gateway?.web_search_replay;
      if (gateway === undefined || (options === undefined && replay === undefined)) return undefined;
      delete gateway.web_search;
      delete gateway.web_search_replay;
      const size = sizes[options?.context_size ?? 'medium'];
      const book = new SourceBook(sealer);
      if (replay !== undefined) restoreReplay(request, replay, book, sealer, size);
      if (options !== undefined) offerSearch(request);
      return { options, size, book };
    };
    return {
      name: 'search',
      async handle(exchange, next) {
        const request = exchange.request;
        const prepared = request && prepare(request);
        if (request === undefined || prepared === undefined) return next();
        const { options, size, book } = prepared;
        let search: SearchSetup | undefined;
        if (options !== undefined) {
          const counter = { executed: 0 };
          exchange.locals.searches = counter;
          search = { options, size, provider, timeoutMs, counter, metrics };
        }
        const first = await next();
        return streamOf(searchLoop(first, { exchange, request, next, book, search }));
      },
      prepareCount(request) {
        prepare(request);
      },
      async close() {
        await provider.close?.();
      },
    };
  },
});
