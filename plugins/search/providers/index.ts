// Chooses the search provider the config names (`provider: local | searxng | brave | tavily`), with its
// options checked and its work done once, at start: the local index is built, API keys are read from
// the variables the options name (a missing one stops the start; keys are never logged).
import { ConfigError } from '../../../config/errors.js';
import { createBraveProvider } from './brave.js';
import { DEMO_CORPUS_DIR } from './corpus.js';
import { createLocalProvider } from './local.js';
import { DEFAULT_TIMEOUT_MS, type SearchProviderOptions } from './options.js';
import type { SearchProvider } from './provider.js';
import { createSearxngProvider } from './searxng.js';
import { createTavilyProvider } from './tavily.js';

export { domainFilter, matchesDomains } from './domains.js';
export { searchProviderOptionsSchema, type SearchProviderOptions } from './options.js';
export {
  SearchError,
  type SearchErrorCode,
  type SearchProvider,
  type SearchQuery,
  type SearchResult,
  type UserLocation,
} from './provider.js';

export interface ProviderContext {
  /** Resolves a path written in the config relative to the config file's folder. */
  resolvePath(path: string): string;
  /** Where API keys are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_BRAVE_URL = 'https://api.search.brave.com';
export const DEFAULT_TAVILY_URL = 'https://api.tavily.com';

/** The provider for these options (already checked against searchProviderOptionsSchema). */
export async function createSearchProvider(
  options: SearchProviderOptions,
  context: ProviderContext,
): Promise<SearchProvider> {
  const timeoutMs = options.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const env = context.env ?? process.env;
  const provider = options.provider ?? 'local';
  switch (provider) {
    case 'local':
      return createLocalProvider(
        options.local?.corpus !== undefined ? context.resolvePath(options.local.corpus) : DEMO_CORPUS_DIR,
      );
    case 'searxng': {
      const url = options.searxng?.url;
      if (url === undefined)
        throw new ConfigError('search provider searxng: options need searxng.url (the instance base URL)');
      return createSearxngProvider({
        url,
        timeoutMs,
        ...(options.searxng?.language !== undefined ? { language: options.searxng.language } : {}),
      });
    }
    case 'brave':
      return createBraveProvider({
        url: options.brave?.url ?? DEFAULT_BRAVE_URL,
        apiKey: apiKey(env, options.brave?.api_key_env ?? 'BRAVE_API_KEY', 'brave'),
        extraSnippets: options.brave?.extra_snippets ?? false,
        timeoutMs,
      });
    case 'tavily':
      return createTavilyProvider({
        url: options.tavily?.url ?? DEFAULT_TAVILY_URL,
        apiKey: apiKey(env, options.tavily?.api_key_env ?? 'TAVILY_API_KEY', 'tavily'),
        searchDepth: options.tavily?.search_depth ?? 'basic',
        timeoutMs,
      });
    default: {
      const unknown: never = provider;
      throw new ConfigError(`search provider '${String(unknown)}' is unknown (local, searxng, brave, tavily)`);
    }
  }
}

function apiKey(env: NodeJS.ProcessEnv, variable: string, provider: string): string {
  const key = env[variable]?.trim();
  if (!key) throw new ConfigError(`search provider ${provider}: the variable ${variable} (its API key) is not set`);
  return key;
}
