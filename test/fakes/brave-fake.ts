// The Brave Search API's web search, per https://api-dashboard.search.brave.com/app/documentation/web-search:
// `GET /res/v1/web/search?q=…&count=…` with `X-Subscription-Token`; answers `{type: "search", query,
// mixed, web: {type: "search", results[], family_friendly}}`, each result with title, url, description
// (matched words in <strong>, entities escaped), age, page_age, language, meta_url, profile and, when
// `extra_snippets=true`, extra_snippets. Errors are `{type: "ErrorResponse", error: {id, status, code,
// detail, meta}, time}`: 401 SUBSCRIPTION_TOKEN_INVALID, 422 VALIDATION (empty or long q, count
// outside 1..20, unknown country), 429 RATE_LIMITED.
import { randomUUID } from 'node:crypto';
import { FAKE_PAGES, startFakeServer, type FakeAnswer, type FakeSearchServer } from './search-fake.js';

const COUNTRIES = new Set(
  'AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US ALL'.split(
    ' ',
  ),
);

function error(status: number, code: string, detail: string, meta: Record<string, unknown> = {}): FakeAnswer {
  return {
    status,
    body: {
      type: 'ErrorResponse',
      error: { id: randomUUID(), status, code, detail, meta },
      time: Math.floor(Date.now() / 1000),
    },
  };
}

export function startBraveFake(token: string): Promise<FakeSearchServer> {
  return startFakeServer({
    check(request) {
      if (request.method !== 'GET' || request.path !== '/res/v1/web/search')
        return error(404, 'NOT_FOUND', 'Resource not found.');
      if (request.headers['x-subscription-token'] !== token)
        return error(401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.');
      const q = request.query.get('q') ?? '';
      const count = Number(request.query.get('count') ?? '20');
      const country = request.query.get('country');
      if (q === '' || q.length > 400 || q.split(/\s+/).length > 50)
        return error(422, 'VALIDATION', 'Unable to validate request parameter(s).', {
          errors: [{ loc: ['query', 'q'] }],
        });
      if (!Number.isInteger(count) || count < 1 || count > 20)
        return error(422, 'VALIDATION', 'Unable to validate request parameter(s).', {
          errors: [{ loc: ['query', 'count'] }],
        });
      if (country !== null && !COUNTRIES.has(country))
        return error(422, 'VALIDATION', 'Unable to validate request parameter(s).', {
          errors: [{ loc: ['query', 'country'] }],
        });
      return undefined;
    },
    ok(request) {
      const q = request.query.get('q')!;
      const count = Number(request.query.get('count') ?? '20');
      const extra = request.query.get('extra_snippets') === 'true';
      const results = FAKE_PAGES.slice(0, count).map((page, index) => {
        const parsed = new URL(page.url);
        return {
          type: 'search_result',
          subtype: 'generic',
          title: page.title,
          url: page.url,
          is_source_local: false,
          is_source_both: false,
          description: `<strong>${q}</strong>: ${page.text.replace(/&/g, '&amp;')}`,
          ...(page.date !== null ? { page_age: page.date, age: index === 0 ? 'March 5, 2025' : '3 weeks ago' } : {}),
          profile: { name: parsed.hostname, url: page.url, long_name: parsed.hostname, img: '' },
          language: 'en',
          family_friendly: true,
          meta_url: {
            scheme: 'https',
            netloc: parsed.hostname,
            hostname: parsed.hostname,
            favicon: '',
            path: `› ${parsed.pathname.slice(1).replace(/\//g, ' › ')}`,
          },
          ...(extra ? { extra_snippets: [`More about ${page.title}.`, 'A second excerpt.'] } : {}),
        };
      });
      return {
        status: 200,
        body: {
          type: 'search',
          query: {
            original: q,
            show_strict_warning: false,
            is_navigational: false,
            is_news_breaking: false,
            spellcheck_off: true,
            country: request.query.get('country')?.toLowerCase() ?? 'us',
            bad_results: false,
            should_fallback: false,
            postal_code: '',
            city: '',
            header_country: '',
            more_results_available: false,
            state: '',
          },
          mixed: {
            type: 'mixed',
            main: results.map((_, index) => ({ type: 'web', index, all: false })),
            top: [],
            side: [],
          },
          web: { type: 'search', results, family_friendly: true },
        },
      };
    },
    rateLimited: () =>
      error(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.', {
        plan: 'Free',
        rate_limit: 1,
        rate_current: 2,
        quota_limit: 2000,
        quota_current: 10,
        component: 'rate_limiter',
      }),
    serverError: () => error(500, 'INTERNAL_ERROR', 'Internal server error.'),
  });
}
