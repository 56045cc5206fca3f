// The Tavily adapter against a protocol-faithful fake of Tavily's search endpoint on loopback.
import t from 'tap';
import { createSearchProvider, type SearchProvider, type SearchQuery } from '../../plugins/search/providers/index.js';
import type { FakeSearchServer } from '../fakes/search-fake.js';
import { startTavilyFake } from '../fakes/tavily-fake.js';

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

const provider = (tavily: Record<string, unknown> = {}, timeoutMs = 2000): Promise<SearchProvider> =>
  createSearchProvider(
    { provider: 'tavily', timeout_ms: timeoutMs, tavily: { url: fake.url, ...tavily } },
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

t.test('HTTP 429 → too_many_requests', async (t) => {
  fake.mode = 'rate_limited';
  await t.rejects((await provider()).search(query()), {
    name: 'SearchError',
    code: 'too_many_requests',
    message: /^tavily: HTTP 429: .*excessive requests/,
  });
});

t.test('HTTP 500 → unavailable', async (t) => {
  fake.mode = 'server_error';
  await t.rejects((await provider()).search(query()), {
    name: 'SearchError',
    code: 'unavailable',
    message: /^tavily: HTTP 500/,
  });
});

t.test('a refused body (400) → invalid_input', async (t) => {
  await t.rejects((await provider()).search(query({ query: '  ' })), {
    code: 'invalid_input',
    message: /Query is missing/,
  });
});

t.test('a wrong key (401) → unavailable, without the key in the message', async (t) => {
  const wrong = await createSearchProvider(
    { provider: 'tavily', tavily: { url: fake.url, api_key_env: 'MY_TAVILY' } },
    { resolvePath: (path) => path, env: { MY_TAVILY: 'tvly-wrong' } },
  );
  const error = await wrong.search(query()).catch((caught: unknown) => caught);
  t.match(error, { code: 'unavailable', message: /HTTP 401/ });
  t.notMatch((error as Error).message, /tvly-wrong/);
});

t.test('no answer within timeout_ms → unavailable', async (t) => {
  fake.mode = 'slow';
  await t.rejects((await provider({}, 150)).search(query()), {
    code: 'unavailable',
    message: 'tavily: no answer within 150 ms',
  });
});

t.test('the caller aborting → unavailable at once', async (t) => {
  fake.mode = 'slow';
  const controller = new AbortController();
  // The caller leaves once the service has the query (which it answers only seconds later).
  void fake.nextRequest().then(() => controller.abort());
  await t.rejects((await provider()).search(query({ signal: controller.signal })), {
    code: 'unavailable',
    message: 'tavily: the search was aborted',
  });
});

t.test('a missing API key variable stops the start, naming the variable', async (t) => {
  await t.rejects(
    createSearchProvider(
      { provider: 'tavily', tavily: { api_key_env: 'NO_SUCH_TAVILY_KEY' } },
      { resolvePath: (path) => path, env: {} },
    ),
    /NO_SUCH_TAVILY_KEY/,
  );
});
