// The rules every search provider keeps, whatever service it asks (docs/web-search.md, "Timeouts and errors" and
// "Keys"): run once by each provider's test, against its fake on loopback. A rule that cannot apply to a provider
// (no HTTP service, no API key) is reported as skipped, with the reason its description gives.
import { createServer } from 'node:net';
import type { Test } from 'tap';
import {
  createSearchProvider,
  SearchError,
  type SearchProvider,
  type SearchProviderOptions,
  type SearchQuery,
} from '../../plugins/search/providers/index.js';
import type { FakeSearchServer } from '../fakes/search-fake.js';

/** Why a group of rules does not apply to this provider. */
export interface NotApplicable {
  readonly notApplicable: string;
}

/** A provider that asks no service: it answers in-process. */
export interface InProcess extends NotApplicable {
  options: SearchProviderOptions;
}

/** A provider that asks a service over HTTP. */
export interface HttpService {
  /** Starts the service's fake (which accepts the provider's key, if it has one). */
  startFake(): Promise<FakeSearchServer>;
  /** The plugin's options for the service at `url`; `keyVariable`, when given, is the variable api_key_env names. */
  options(url: string, keyVariable?: string): SearchProviderOptions;
  /** The service's own words in its 429 answer, which the error message carries. */
  rateLimitDetail: RegExp;
  /** A query the service refuses, and what the error message says of it. */
  refusedQuery: { query: string; detail: RegExp };
}

/** A provider that sends an API key, read from a variable. */
export interface ApiKey {
  /** The variable read when the options name none. */
  defaultVariable: string;
  /** The key its fake accepts. */
  value: string;
}

export interface SearchProviderDescription {
  /** The provider's name: its SearchProvider.name, and how its errors' messages start (`brave: …`). */
  name: string;
  service: HttpService | InProcess;
  key: ApiKey | NotApplicable;
}

const query = (fields: Partial<SearchQuery> = {}): SearchQuery => ({
  query: 'sse streaming',
  maxResults: 5,
  signal: new AbortController().signal,
  ...fields,
});

/** Registers the contract's rules, one test each, in one group named after the provider. */
export function searchProviderContract(t: Test, described: SearchProviderDescription): void {
  t.test(`${described.name} keeps the search-provider contract`, async (t) => contractRules(t, described));
}

function contractRules(t: Test, { name, service, key }: SearchProviderDescription): void {
  const http = 'notApplicable' in service ? undefined : service;
  const apiKey = 'notApplicable' in key ? undefined : key;
  const withService = { skip: 'notApplicable' in service ? service.notApplicable : false };
  const withKey = { skip: 'notApplicable' in key ? key.notApplicable : withService.skip };
  const create = (
    options: SearchProviderOptions,
    env: NodeJS.ProcessEnv = apiKey ? { [apiKey.defaultVariable]: apiKey.value } : {},
  ): Promise<SearchProvider> => createSearchProvider(options, { resolvePath: (path) => path, env });

  let fake: FakeSearchServer | undefined;
  t.before(async () => {
    fake = await http?.startFake();
  });
  t.teardown(() => fake?.close());
  t.beforeEach(() => {
    if (fake === undefined) return;
    fake.mode = 'ok';
    fake.requests.length = 0;
  });
  /** The provider asking the fake within `timeoutMs` (or, in-process, the provider itself). */
  const provider = (timeoutMs = 2000): Promise<SearchProvider> =>
    create('notApplicable' in service ? service.options : { ...service.options(fake!.url), timeout_ms: timeoutMs });

  t.test('a search the caller has already left → unavailable, and nothing is asked', async (t) => {
    const controller = new AbortController();
    controller.abort();
    const error = await (
      await provider()
    )
      .search(query({ signal: controller.signal }))
      .catch((caught: unknown) => caught);
    t.ok(error instanceof SearchError);
    t.match(error, { name: 'SearchError', code: 'unavailable', message: `${name}: the search was aborted` });
    if (fake !== undefined) t.equal(fake.requests.length, 0);
  });

  t.test('HTTP 429 → too_many_requests', withService, async (t) => {
    fake!.mode = 'rate_limited';
    const error = await (await provider()).search(query()).catch((caught: unknown) => caught);
    t.ok(error instanceof SearchError);
    t.match(error, { name: 'SearchError', code: 'too_many_requests', message: new RegExp(`^${name}: HTTP 429: `) });
    t.match((error as Error).message, http!.rateLimitDetail, "the service's own words");
  });

  t.test('HTTP 500 → unavailable', withService, async (t) => {
    fake!.mode = 'server_error';
    await t.rejects((await provider()).search(query()), {
      name: 'SearchError',
      code: 'unavailable',
      message: new RegExp(`^${name}: HTTP 500`),
    });
  });

  t.test('a query the service refuses → invalid_input', withService, async (t) => {
    await t.rejects((await provider()).search(query({ query: http!.refusedQuery.query })), {
      name: 'SearchError',
      code: 'invalid_input',
      message: http!.refusedQuery.detail,
    });
  });

  t.test('a wrong base path (404) → unavailable', withService, async (t) => {
    const wrongPath = await create(http!.options(`${fake!.url}/nowhere`));
    await t.rejects(wrongPath.search(query()), { code: 'unavailable', message: /HTTP 404/ });
  });

  t.test('a 200 answer that is not JSON → unavailable', withService, async (t) => {
    fake!.mode = 'not_json';
    await t.rejects((await provider()).search(query()), {
      code: 'unavailable',
      message: `${name}: the answer is not JSON`,
    });
  });

  t.test('nothing listening → unavailable, with the network error code', withService, async (t) => {
    const closed = await create(http!.options(`http://127.0.0.1:${await closedPort()}`));
    await t.rejects(closed.search(query()), { code: 'unavailable', message: `${name}: ECONNREFUSED` });
  });

  t.test('no answer within timeout_ms → unavailable, saying so', withService, async (t) => {
    fake!.mode = 'slow';
    await t.rejects((await provider(200)).search(query()), {
      code: 'unavailable',
      message: `${name}: no answer within 200 ms`,
    });
  });

  t.test('the caller aborting → unavailable at once', withService, async (t) => {
    fake!.mode = 'slow';
    const controller = new AbortController();
    // The caller leaves once the service has the query (which it answers only seconds later).
    void fake!.nextRequest().then(() => controller.abort());
    await t.rejects((await provider()).search(query({ signal: controller.signal })), {
      code: 'unavailable',
      message: `${name}: the search was aborted`,
    });
  });

  t.test('a wrong API key (401) → unavailable, without the key in the message', withKey, async (t) => {
    const wrongKey = `${name}-not-the-key`;
    const wrong = await create(http!.options(fake!.url, 'CONTRACT_WRONG_KEY'), { CONTRACT_WRONG_KEY: wrongKey });
    const error = await wrong.search(query()).catch((caught: unknown) => caught);
    t.match(error, { name: 'SearchError', code: 'unavailable', message: /HTTP 401/ });
    t.notMatch((error as Error).message, wrongKey);
  });

  t.test('a missing API key variable stops the start, naming the variable', withKey, async (t) => {
    await t.rejects(
      create(http!.options(fake!.url), {}),
      new RegExp(`\\b${apiKey!.defaultVariable}\\b`),
      'the default one',
    );
    await t.rejects(
      create(http!.options(fake!.url, 'NO_SUCH_SEARCH_KEY'), {}),
      /\bNO_SUCH_SEARCH_KEY\b/,
      'the one the options name',
    );
  });
}

/** A loopback port nothing listens on (one the system just gave out and took back). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
