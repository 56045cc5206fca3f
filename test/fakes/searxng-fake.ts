// A SearxNG instance with JSON output enabled, per https://docs.searxng.org/dev/search_api.html:
// `GET /search?q=…&format=json` answers `{query, number_of_results, results[], answers, corrections,
// infoboxes, suggestions, unresponsive_engines}`, each result with url, title, content, publishedDate
// (null when unknown), engine(s), parsed_url, score, category. A format other than json gets 403 (as an
// instance that does not enable it), an empty q 400, the limiter 429 (text), a crash 500 (HTML).
import { FAKE_PAGES, startFakeServer, type FakeSearchServer } from './search-fake.js';

export function startSearxngFake(): Promise<FakeSearchServer> {
  return startFakeServer({
    check(request) {
      if (request.method !== 'GET' || request.path !== '/search')
        return { status: 404, body: '<html>Not Found</html>' };
      if (request.query.get('format') !== 'json') return { status: 403, body: '<html>403 Forbidden</html>' };
      if (!request.query.get('q')) return { status: 400, body: { error: 'search error', message: 'No query' } };
      return undefined;
    },
    ok(request) {
      const q = request.query.get('q')!;
      return {
        status: 200,
        body: {
          query: q,
          number_of_results: 0,
          results: FAKE_PAGES.map((page, index) => {
            const parsed = new URL(page.url);
            return {
              url: page.url,
              title: page.title,
              content: page.text,
              publishedDate: page.date,
              thumbnail: '',
              engine: 'duckduckgo',
              template: 'default.html',
              parsed_url: ['https', parsed.host, parsed.pathname, '', '', ''],
              img_src: '',
              priority: '',
              engines: ['duckduckgo', 'brave'],
              positions: [index + 1],
              score: 3 - index * 0.5,
              category: 'general',
            };
          }),
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [`${q} tutorial`],
          unresponsive_engines: [],
        },
      };
    },
    rateLimited: () => ({ status: 429, body: '<html>Too Many Requests</html>' }),
    serverError: () => ({ status: 500, body: '<html>Internal Server Error</html>' }),
  });
}
