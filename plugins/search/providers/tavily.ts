// Tavily search (https://docs.tavily.com/api-reference/endpoint/search): `POST {base}/search`
// with `Authorization: Bearer <key>` and the JSON body `{query, max_results (0..20), search_depth
// (basic | advanced), include_domains, exclude_domains}`; the answer's `results[]` carry `url`, `title`,
// `content`, `score` and, for news, `published_date`. Errors: 400 bad request, 401 bad key, 429 rate
// limit, 432/433 plan or spending limit, 5xx.
import { callProvider, endpoint } from './http.js';
import type { SearchProvider, SearchQuery, SearchResult } from './provider.js';
import { optionalText, plainText, toSearchResults, withinQuery } from './result-text.js';

export interface TavilyProviderOptions {
  url: string;
  apiKey: string;
  searchDepth: 'basic' | 'advanced';
  timeoutMs: number;
}

const MAX_RESULTS = 20;

export function createTavilyProvider(options: TavilyProviderOptions): SearchProvider {
  return {
    name: 'tavily',
    async search(query: SearchQuery): Promise<SearchResult[]> {
      const body: Record<string, unknown> = {
        query: query.query,
        max_results: Math.min(Math.max(query.maxResults, 1), MAX_RESULTS),
        search_depth: options.searchDepth,
      };
      if (query.allowedDomains?.length) body.include_domains = query.allowedDomains;
      if (query.blockedDomains?.length) body.exclude_domains = query.blockedDomains;
      const answer = await callProvider({
        provider: 'tavily',
        url: endpoint(options.url, '/search'),
        method: 'POST',
        headers: { authorization: `Bearer ${options.apiKey}` },
        json: body,
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
    pageAge: (item) => optionalText(item.published_date),
  });
}
