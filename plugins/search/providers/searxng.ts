// SearxNG's JSON search API (https://docs.searxng.org/dev/search_api.html): `GET {base}/search?q=…&format=json`
// with an optional `language`; the answer's `results[]` carry `url`, `title`, `content` and `publishedDate`
// (null when the engine gives none). The instance must list `json` in settings.yml `search.formats`, else
// it answers 403. SearxNG takes no result count and no domain lists: results are filtered and trimmed here
// (and again by the plugin).
import { callProvider, endpoint } from './http.js';
import type { SearchProvider, SearchQuery, SearchResult } from './provider.js';
import { optionalText, plainText, toSearchResults, withinQuery } from './result-text.js';

export interface SearxngProviderOptions {
  url: string;
  language?: string;
  timeoutMs: number;
}

export function createSearxngProvider(options: SearxngProviderOptions): SearchProvider {
  return {
    name: 'searxng',
    async search(query: SearchQuery): Promise<SearchResult[]> {
      const url = endpoint(options.url, '/search');
      url.searchParams.set('q', query.query);
      url.searchParams.set('format', 'json');
      if (options.language !== undefined) url.searchParams.set('language', options.language);
      const answer = await callProvider({
        provider: 'searxng',
        url,
        method: 'GET',
        headers: {},
        signal: query.signal,
        timeoutMs: options.timeoutMs,
      });
      return withinQuery(readResults(answer), query);
    },
  };
}

function readResults(answer: unknown): SearchResult[] {
  return toSearchResults((answer as { results?: unknown } | null)?.results, {
    content: (item) => plainText(item.content),
    pageAge: (item) => optionalText(item.publishedDate),
  });
}
