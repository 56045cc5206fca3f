// The Tavily adapter against a protocol-faithful fake of Tavily's search endpoint on loopback: its wire
// (request, results, options) here, the rules every provider keeps in the contract.
import t from 'tap';
import {
  createSearchProvider,
  type SearchProvider,
  type SearchQuery,
} from '../../../../../plugins/search/providers/index.js';
import type { FakeSearchServer } from '../../../../fakes/search-fake.js';
import { startTavilyFake } from '../../../../fakes/tavily-fake.js';
import { searchProviderContract } from '../../../../kit/search-provider-contract.js';

const KEY = 'tvly-test-key';
let fake: FakeSearchServer;
t.before(async () => {
  fake = await startTavilyFake(KEY);
});
t.teardown(() => fake.close());
t.beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
});

const provider = (tavily: Record<string, unknown> = {}): Promise<SearchProvider> =>
  createSearchProvider(
    { provider: 'tavily', timeout_ms: 2000, tavily: { url: fake.url, ...tavily } },
    { resolvePath: (path) => path, env: { TAVILY_API_KEY: KEY } },
  );
const query = (fields: Partial<SearchQuery> = {}): SearchQuery => ({
  query: 'sse streaming',
  maxResults: 5,
  signal: new AbortController().signal,
  ...fields,
});

t.test('sends POST /search with the bearer key and {query, max_results, search_depth}', async (t) => {
  await (await provider()).search(query({ maxResults: 3 }));
  const [request] = fake.requests;
  t.equal(request?.method, 'POST');
  t.equal(request?.path, '/search');
  t.equal(request?.headers.authorization, `Bearer ${KEY}`);
  t.match(request?.headers['content-type'], /^application\/json/);
  t.same(JSON.parse(request!.body), { query: 'sse streaming', max_results: 3, search_depth: 'basic' });
});

t.test('passes the domain lists as include_domains / exclude_domains, and search_depth from the options', async (t) => {
  const results = await (
    await provider({ search_depth: 'advanced' })
  ).search(query({ allowedDomains: ['example.com', 'example.org'], blockedDomains: ['blog.example.org'] }));
  t.same(JSON.parse(fake.requests[0]!.body), {
    query: 'sse streaming',
    max_results: 5,
    search_depth: 'advanced',
    include_domains: ['example.com', 'example.org'],
    exclude_domains: ['blog.example.org'],
  });
  t.same(
    results.map((result) => result.url),
    ['https://docs.example.com/guide/streaming'],
  );
});

t.test('maps results to url, title, content and published_date', async (t) => {
  const results = await (await provider()).search(query());
  t.same(results[0], {
    url: 'https://docs.example.com/guide/streaming',
    title: 'Streaming guide',
    content: 'How to stream tokens with server-sent events & keep the connection open.',
    pageAge: 'Wed, 05 Mar 2025 00:00:00 GMT',
  });
  t.same(results[1], {
    url: 'https://blog.example.org/2025/sse-in-practice',
    title: 'SSE in practice',
    content: 'Lessons from running event streams in production.',
  });
});

t.test('max_results stays within Tavily’s 1..20', async (t) => {
  await (await provider()).search(query({ maxResults: 50 }));
  t.equal(JSON.parse(fake.requests[0]!.body).max_results, 20);
});

searchProviderContract(t, {
  name: 'tavily',
  service: {
    startFake: () => startTavilyFake(KEY),
    options: (url, keyVariable) => ({
      provider: 'tavily',
      tavily: { url, ...(keyVariable !== undefined ? { api_key_env: keyVariable } : {}) },
    }),
    rateLimitDetail: /excessive requests/,
    refusedQuery: { query: '  ', detail: /HTTP 400: .*Query is missing/ },
  },
  key: { defaultVariable: 'TAVILY_API_KEY', value: KEY },
});
