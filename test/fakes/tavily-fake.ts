// Tavily's search endpoint, per https://docs.tavily.com/api-reference/endpoint/search: `POST /search` with
// `Authorization: Bearer <key>` and a JSON body `{query, max_results (0..20), search_depth (basic |
// advanced), include_domains, exclude_domains, …}`; answers `{query, follow_up_questions, answer, images,
// results[], response_time, request_id}`, each result with title, url, content, score, raw_content and
// (news) published_date. Errors are `{detail: {error}}`: 400 bad body, 401 missing or bad key, 429
// rate limit, 500.
import { randomUUID } from 'node:crypto';
import { FAKE_PAGES, startFakeServer, type FakeAnswer, type FakeSearchServer } from './search-fake.js';

const error = (status: number, message: string): FakeAnswer => ({ status, body: { detail: { error: message } } });

interface TavilyBody {
  query?: unknown;
  max_results?: unknown;
  search_depth?: unknown;
  include_domains?: unknown;
  exclude_domains?: unknown;
}

function covers(domains: unknown, url: string): boolean {
  const host = new URL(url).hostname;
  return Array.isArray(domains) && domains.some((domain) => host === domain || host.endsWith(`.${String(domain)}`));
}

export function startTavilyFake(key: string): Promise<FakeSearchServer> {
  return startFakeServer({
    check(request) {
      if (request.method !== 'POST' || request.path !== '/search') return error(404, 'Not Found');
      if (request.headers.authorization !== `Bearer ${key}`)
        return error(401, 'Unauthorized: missing or invalid API key.');
      if (!String(request.headers['content-type']).startsWith('application/json'))
        return error(400, 'Content-Type must be application/json.');
      let body: TavilyBody;
      try {
        body = JSON.parse(request.body) as TavilyBody;
      } catch {
        return error(400, 'Invalid JSON body.');
      }
      if (typeof body.query !== 'string' || body.query.trim() === '') return error(400, 'Query is missing.');
      if (
        body.max_results !== undefined &&
        (!Number.isInteger(body.max_results) || (body.max_results as number) < 0 || (body.max_results as number) > 20)
      )
        return error(400, 'max_results must be between 0 and 20.');
      if (body.search_depth !== undefined && body.search_depth !== 'basic' && body.search_depth !== 'advanced')
        return error(400, 'Invalid search_depth.');
      return undefined;
    },
    ok(request) {
      const body = JSON.parse(request.body) as TavilyBody;
      const results = FAKE_PAGES.filter(
        (page) =>
          (body.include_domains === undefined ||
            (body.include_domains as unknown[]).length === 0 ||
            covers(body.include_domains, page.url)) &&
          !covers(body.exclude_domains, page.url),
      )
        .slice(0, (body.max_results as number | undefined) ?? 5)
        .map((page, index) => ({
          title: page.title,
          url: page.url,
          content: page.text,
          score: 0.9 - index * 0.1,
          raw_content: null,
          ...(page.date !== null ? { published_date: new Date(`${page.date}Z`).toUTCString() } : {}),
        }));
      return {
        status: 200,
        body: {
          query: body.query,
          follow_up_questions: null,
          answer: null,
          images: [],
          results,
          response_time: 0.42,
          request_id: randomUUID(),
        },
      };
    },
    rateLimited: () =>
      error(429, 'Your request has been blocked due to excessive requests. Please reduce rate of requests.'),
    serverError: () => error(500, 'Internal Server Error'),
  });
}
