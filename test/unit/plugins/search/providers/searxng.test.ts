// The SearxNG adapter against a protocol-faithful fake of a SearxNG instance's JSON API on loopback: its wire
// (request, results, options) here, the rules every provider keeps in the contract.
import t from 'tap';
import {
  createSearchProvider,
  type SearchProvider,
  type SearchQuery,
} from '../../../../../plugins/search/providers/index.js';
import type { FakeSearchServer } from '../../../../fakes/search-fake.js';
import { startSearxngFake } from '../../../../fakes/searxng-fake.js';
import { searchProviderContract } from '../../../../kit/search-provider-contract.js';

let fake: FakeSearchServer;
t.before(async () => {
  fake = await startSearxngFake();
});
t.teardown(() => fake.close());
t.beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
});

const context = { resolvePath: (path: string) => path, env: {} };
const provider = (searxng: Record<string, unknown> = {}): Promise<SearchProvider> =>
  createSearchProvider({ provider: 'searxng', timeout_ms: 2000, searxng: { url: fake.url, ...searxng } }, context);
const query = (fields: Partial<SearchQuery> = {}): SearchQuery => ({
  query: 'sse streaming',
  maxResults: 5,
  signal: new AbortController().signal,
  ...fields,
});

t.test('sends GET {url}/search?q=…&format=json, with language only when configured', async (t) => {
  await (await provider()).search(query());
  await (await provider({ language: 'en-US' })).search(query());
  const [plain, withLanguage] = fake.requests;
  t.equal(plain?.method, 'GET');
  t.equal(plain?.path, '/search');
  t.equal(plain?.query.get('q'), 'sse streaming');
  t.equal(plain?.query.get('format'), 'json');
  t.equal(plain?.query.get('language'), null);
  t.equal(withLanguage?.query.get('language'), 'en-US');
});

t.test('a base URL with a path keeps it (an instance under /searx)', async (t) => {
  const underPath = await createSearchProvider(
    { provider: 'searxng', searxng: { url: `${fake.url}/searx/` } },
    context,
  );
  await underPath.search(query()).catch(() => undefined);
  t.equal(fake.requests[0]?.path, '/searx/search');
});

t.test('maps results to url, title, content and publishedDate', async (t) => {
  const results = await (await provider()).search(query());
  t.same(results, [
    {
      url: 'https://docs.example.com/guide/streaming',
      title: 'Streaming guide',
      content: 'How to stream tokens with server-sent events & keep the connection open.',
      pageAge: '2025-03-05T00:00:00',
    },
    {
      url: 'https://blog.example.org/2025/sse-in-practice',
      title: 'SSE in practice',
      content: 'Lessons from running event streams in production.',
    },
    {
      url: 'https://news.example.net/articles/http-streaming',
      title: 'HTTP streaming is back',
      content: 'Why every LLM API now streams its answers.',
      pageAge: '2025-06-01T09:30:00',
    },
  ]);
});

t.test('trims to maxResults and applies the domain lists itself (SearxNG has neither)', async (t) => {
  t.equal((await (await provider()).search(query({ maxResults: 2 }))).length, 2);
  const results = await (
    await provider()
  ).search(query({ allowedDomains: ['example.net', 'example.org'], blockedDomains: ['blog.example.org'] }));
  t.same(
    results.map((result) => result.url),
    ['https://news.example.net/articles/http-streaming'],
  );
});

t.test('searxng without a url stops the start', async (t) => {
  await t.rejects(createSearchProvider({ provider: 'searxng' }, context), /searxng\.url/);
});

searchProviderContract(t, {
  name: 'searxng',
  service: {
    startFake: startSearxngFake,
    options: (url) => ({ provider: 'searxng', searxng: { url } }),
    rateLimitDetail: /Too Many Requests/,
    refusedQuery: { query: '', detail: /HTTP 400/ },
  },
  key: { notApplicable: 'SearxNG takes no API key' },
});
