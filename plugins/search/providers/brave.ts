// Brave Search API, web search (https://api-dashboard.search.brave.com/app/documentation/web-search):
// `GET {base}/res/v1/web/search?q=…&count=…[&country=…][&extra_snippets=true]` with the header
// `X-Subscription-Token`; the answer (`type: "search"`) carries `web.results[]` with `url`, `title`,
// `description` (the matched words in <strong>), `age` ("2 days ago", "March 5, 2024"), `page_age` (ISO)
// and, on plans that have them, `extra_snippets`. `q` is at most 400 characters and 50 words, `count`
// 1..20, `country` one of Brave's codes (others get 422, so they are left out). No domain parameters:
// with a domain list the adapter asks for the most results and filters them.
import { callProvider, endpoint } from './http.js';
import { SearchError, type SearchProvider, type SearchQuery, type SearchResult } from './provider.js';
import { optionalText, plainText, toSearchResults, withinQuery } from './result-text.js';

export interface BraveProviderOptions {
  url: string;
  apiKey: string;
  extraSnippets: boolean;
  timeoutMs: number;
}

const MAX_COUNT = 20;
const MAX_QUERY_CHARS = 400;
const COUNTRIES = new Set(
  'AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US'.split(
    ' ',
  ),
);

export function createBraveProvider(options: BraveProviderOptions): SearchProvider {
  return {
    name: 'brave',
    async search(query: SearchQuery): Promise<SearchResult[]> {
      if (query.query.length > MAX_QUERY_CHARS)
        throw new SearchError('query_too_long', `brave: the query is longer than ${MAX_QUERY_CHARS} characters`);
      const filtered = (query.allowedDomains?.length ?? 0) > 0 || (query.blockedDomains?.length ?? 0) > 0;
      const url = endpoint(options.url, '/res/v1/web/search');
      url.searchParams.set('q', query.query);
      url.searchParams.set('count', String(filtered ? MAX_COUNT : Math.min(Math.max(query.maxResults, 1), MAX_COUNT)));
      const country = query.userLocation?.country?.toUpperCase();
      if (country !== undefined && COUNTRIES.has(country)) url.searchParams.set('country', country);
      if (options.extraSnippets) url.searchParams.set('extra_snippets', 'true');
      const answer = await callProvider({
        provider: 'brave',
        url,
        method: 'GET',
        headers: { 'x-subscription-token': options.apiKey },
        signal: query.signal,
        timeoutMs: options.timeoutMs,
      });
      return withinQuery(readResults(answer), query);
    },
  };
}

function readResults(answer: unknown): SearchResult[] {
  return toSearchResults((answer as { web?: { results?: unknown } } | null)?.web?.results, {
    content: (item) =>
      [item.description, ...(Array.isArray(item.extra_snippets) ? item.extra_snippets : [])]
        .map(plainText)
        .filter((text) => text !== '')
        .join('\n\n'),
    pageAge: (item) => optionalText(item.age) ?? optionalText(item.page_age),
  });
}
