// The SearxNG adapter against a protocol-faithful fake of a SearxNG instance's JSON API on loopback.
import { createServer } from 'node:net';
import t from 'tap';
import { createSearchProvider, type SearchProvider, type SearchQuery } from '../../plugins/search/providers/index.js';
import type { FakeSearchServer } from '../fakes/search-fake.js';
import { startSearxngFake } from '../fakes/searxng-fake.js';

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
const provider = (searxng: Record<string, unknown> = {}, timeoutMs = 2000): Promise<SearchProvider> =>
  createSearchProvider({ provider: 'searxng', timeout_ms: timeoutMs, searxng: { url: fake.url, ...searxng } }, context);
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

t.test('HTTP 429 (the limiter) → too_many_requests', async (t) => {
  fake.mode = 'rate_limited';
  await t.rejects((await provider()).search(query()), { name: 'SearchError', code: 'too_many_requests' });
});

t.test('HTTP 500 → unavailable', async (t) => {
  fake.mode = 'server_error';
  await t.rejects((await provider()).search(query()), {
    name: 'SearchError',
    code: 'unavailable',
    message: /^searxng: HTTP 500/,
  });
});

t.test('an empty query (400) → invalid_input', async (t) => {
  await t.rejects((await provider()).search(query({ query: '' })), { code: 'invalid_input', message: /HTTP 400/ });
});

t.test('no answer within timeout_ms → unavailable', async (t) => {
  fake.mode = 'slow';
  await t.rejects((await provider({}, 150)).search(query()), {
    code: 'unavailable',
    message: 'searxng: no answer within 150 ms',
  });
});

t.test('the caller aborting → unavailable at once', async (t) => {
  fake.mode = 'slow';
  const controller = new AbortController();
  // The caller leaves once the service has the query (which it answers only seconds later).
  void fake.nextRequest().then(() => controller.abort());
  await t.rejects((await provider()).search(query({ signal: controller.signal })), {
    code: 'unavailable',
    message: 'searxng: the search was aborted',
  });
});

t.test('nothing listening → unavailable, with the network error code', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const closed = await createSearchProvider(
    { provider: 'searxng', searxng: { url: `http://127.0.0.1:${port}` } },
    context,
  );
  await t.rejects(closed.search(query()), { code: 'unavailable', message: 'searxng: ECONNREFUSED' });
});

t.test('a 200 answer that is not JSON → unavailable', async (t) => {
  fake.mode = 'not_json';
  await t.rejects((await provider()).search(query()), {
    code: 'unavailable',
    message: 'searxng: the answer is not JSON',
  });
});

t.test('a wrong base path (404) → unavailable', async (t) => {
  const wrongPath = await createSearchProvider(
    { provider: 'searxng', searxng: { url: `${fake.url}/nowhere` } },
    context,
  );
  await t.rejects(wrongPath.search(query()), { code: 'unavailable', message: /HTTP 404/ });
});

t.test('searxng without a url stops the start', async (t) => {
  await t.rejects(createSearchProvider({ provider: 'searxng' }, context), /searxng\.url/);
});
