// SearxNG's JSON search API (https://docs.searxng.org/dev/search_api.html): `GET {base}/search?q=…&format=json`
// with an optional `language`; the answer's `results[]` carry `url`, `title`, `content` and `publishedDate`
// (null when the engine gives none). The instance must list `json` in settings.yml `search.formats`, else
// it answers 403. SearxNG takes no result count and no domain lists: results are filtered and trimmed here
// (and again by the plugin).
import { domainFilter } from './domains.js';
import { callProvider, endpoint } from './http.js';
import type { SearchProvider, SearchQuery, SearchResult } from './provider.js';
import { optionalText, plainText } from './result-text.js';

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
      const answer = await callProvider({ provider: 'searxng', url, method: 'GET', headers: {}, signal: query.signal, timeoutMs: options.timeoutMs });
      const allowed = domainFilter(query.allowedDomains, query.blockedDomains);
      return readResults(answer)
        .filter((result) => allowed(result.url))
        .slice(0, query.maxResults);
    },
  };
}

function readResults(answer: unknown): SearchResult[] {
  const results = (answer as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return [];
  const mapped: SearchResult[] = [];
  for (const item of results as Array<Record<string, unknown> | null>) {
    const url = optionalText(item?.url);
    if (url === undefined) continue;
    const pageAge = optionalText(item?.publishedDate);
    mapped.push({ url, title: plainText(item?.title) || url, content: plainText(item?.content), ...(pageAge !== undefined ? { pageAge } : {}) });
  }
  return mapped;
}
