// The Brave Search adapter against a protocol-faithful fake of its web search API on loopback: its wire
// (request, results, options) here, the rules every provider keeps in the contract.
import t from 'tap';
import {
  createSearchProvider,
  type SearchProvider,
  type SearchQuery,
} from '../../../../../plugins/search/providers/index.js';
import { startBraveFake } from '../../../../fakes/brave-fake.js';
import type { FakeSearchServer } from '../../../../fakes/search-fake.js';
import { searchProviderContract } from '../../../../kit/search-provider-contract.js';

const TOKEN = 'brave-test-token';
let fake: FakeSearchServer;
t.before(async () => {
  fake = await startBraveFake(TOKEN);
});
t.teardown(() => fake.close());
t.beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
});

const provider = (extra: Record<string, unknown> = {}): Promise<SearchProvider> =>
  createSearchProvider(
    { provider: 'brave', timeout_ms: 2000, brave: { url: fake.url, api_key_env: 'TEST_BRAVE_KEY', ...extra } },
    { resolvePath: (path) => path, env: { TEST_BRAVE_KEY: TOKEN } },
  );
const query = (fields: Partial<SearchQuery> = {}): SearchQuery => ({
  query: 'sse streaming',
  maxResults: 5,
  signal: new AbortController().signal,
  ...fields,
});

t.test('sends GET /res/v1/web/search with q, count and the subscription token', async (t) => {
  await (await provider()).search(query({ maxResults: 2 }));
  const [request] = fake.requests;
  t.equal(request?.method, 'GET');
  t.equal(request?.path, '/res/v1/web/search');
  t.equal(request?.query.get('q'), 'sse streaming');
  t.equal(request?.query.get('count'), '2');
  t.equal(request?.headers['x-subscription-token'], TOKEN);
  t.equal(request?.headers.accept, 'application/json');
  t.equal(request?.query.get('country'), null);
});

t.test('passes the user location country when Brave knows it, and leaves out one it does not', async (t) => {
  const brave = await provider();
  await brave.search(query({ userLocation: { type: 'approximate', country: 'de' } }));
  await brave.search(query({ userLocation: { type: 'approximate', country: 'VN' } }));
  t.equal(fake.requests[0]?.query.get('country'), 'DE');
  t.equal(fake.requests[1]?.query.get('country'), null);
});

t.test('maps web.results to url, title, plain-text content and the age', async (t) => {
  const results = await (await provider()).search(query());
  t.same(results[0], {
    url: 'https://docs.example.com/guide/streaming',
    title: 'Streaming guide',
    content: 'sse streaming: How to stream tokens with server-sent events & keep the connection open.',
    pageAge: 'March 5, 2025',
  });
  t.equal(results.length, 3);
  t.notOk('pageAge' in results[1]!, 'a result without an age has no pageAge');
});

t.test('asks for extra_snippets when configured and appends them to the content', async (t) => {
  const results = await (await provider({ extra_snippets: true })).search(query());
  t.equal(fake.requests[0]?.query.get('extra_snippets'), 'true');
  t.match(results[0]?.content, /open\.\n\nMore about Streaming guide\.\n\nA second excerpt\.$/);
});

t.test('with a domain list, asks for 20 results and keeps only the allowed ones, up to maxResults', async (t) => {
  const results = await (await provider()).search(query({ maxResults: 1, allowedDomains: ['example.org'] }));
  t.equal(fake.requests[0]?.query.get('count'), '20');
  t.same(
    results.map((result) => result.url),
    ['https://blog.example.org/2025/sse-in-practice'],
  );
  const blocked = await (await provider()).search(query({ blockedDomains: ['docs.example.com'] }));
  t.notOk(blocked.some((result) => result.url.includes('docs.example.com')));
});

t.test('a query over 400 characters → query_too_long, not sent', async (t) => {
  await t.rejects((await provider()).search(query({ query: 'x'.repeat(401) })), {
    name: 'SearchError',
    code: 'query_too_long',
  });
  t.equal(fake.requests.length, 0);
});

searchProviderContract(t, {
  name: 'brave',
  service: {
    startFake: () => startBraveFake(TOKEN),
    options: (url, keyVariable) => ({
      provider: 'brave',
      brave: { url, ...(keyVariable !== undefined ? { api_key_env: keyVariable } : {}) },
    }),
    rateLimitDetail: /RATE_LIMITED/,
    // Brave takes at most 50 words.
    refusedQuery: { query: Array(60).fill('word').join(' '), detail: /HTTP 422/ },
  },
  key: { defaultVariable: 'BRAVE_API_KEY', value: TOKEN },
});
