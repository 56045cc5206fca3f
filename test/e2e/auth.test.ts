// The auth plugin: keys in x-api-key or Authorization: Bearer, 401 in each dialect (spec sections 5, 7), revocation.
import t from 'tap';
import type { Store } from '../../store/store.js';
import { TestClock } from '../helpers/clock.js';
import { startStack, type Stack } from '../helpers/stack.js';

const CACHE_TTL_MS = 200;
// The auth cache's clock: an entry expires when a test moves it on, not while a test runs.
const clock = new TestClock();
let stack: Stack;
let store: Store;
let key: string;
let keyId: string;
t.before(async () => {
  stack = await startStack({
    yaml: `plugins:\n  - name: auth\n    options: { cache_ttl_ms: ${CACHE_TTL_MS} }\n`,
    now: clock.now,
  });
  store = await stack.store();
  await store.orgs.create('acme');
  const created = await store.keys.create('acme', 'tests');
  key = created.key;
  keyId = created.record.id;
});
t.teardown(async () => {
  await stack.close();
});

const hello = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] };
const call = (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<Response> =>
  fetch(stack.gateway.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });

t.test('no key: 401 in the chat dialect is invalid_request_error, invalid_api_key, "Unauthorized"', async (t) => {
  const response = await call('/v1/chat/completions', hello);
  t.equal(response.status, 401);
  t.same(await response.json(), {
    error: { message: 'Unauthorized', type: 'invalid_request_error', code: 'invalid_api_key', param: null },
  });
});

t.test('no key: 401 in the message dialect is authentication_error about an invalid key', async (t) => {
  for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
    const response = await call(path, { ...hello, max_tokens: 10 });
    t.equal(response.status, 401, path);
    t.match(await response.json(), { type: 'error', error: { type: 'authentication_error', message: /key/ } }, path);
  }
});

t.test('a malformed or unknown key is 401, and 401 comes before any body validation', async (t) => {
  t.equal((await call('/v1/chat/completions', hello, { 'x-api-key': 'sk-svc-short' })).status, 401);
  t.equal(
    (await call('/v1/chat/completions', hello, { authorization: `Bearer sk-svc-${'A'.repeat(43)}` })).status,
    401,
  );
  t.equal((await call('/v1/chat/completions', { nonsense: true })).status, 401);
});

t.test(
  'regression: the message dialect\'s 401 said "invalid x-api-key" for a key sent as Authorization: Bearer; every dialect now names no header it was not given',
  async (t) => {
    const unknown = `sk-svc-${'A'.repeat(43)}`;
    for (const [header, headers] of [
      ['x-api-key', { 'x-api-key': unknown }],
      ['Authorization: Bearer', { authorization: `Bearer ${unknown}` }],
    ] as const) {
      for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
        const response = await call(path, { ...hello, max_tokens: 10 }, headers);
        t.equal(response.status, 401, `${path}, ${header}`);
        t.same(
          await response.json(),
          {
            type: 'error',
            error: {
              type: 'authentication_error',
              message: `invalid API key (${header}): the key is unknown or revoked.`,
            },
          },
          `${path}, ${header}`,
        );
      }
      // The chat dialect's 401 is the spec's `Unauthorized`, whatever the header (responses renders it alike).
      for (const [path, body] of [
        ['/v1/chat/completions', hello],
        ['/v1/responses', { model: 'qwen3-8b', input: 'echo: hi' }],
      ] as const) {
        const response = await call(path, body, headers);
        t.equal(response.status, 401, `${path}, ${header}`);
        t.same(
          await response.json(),
          { error: { message: 'Unauthorized', type: 'invalid_request_error', code: 'invalid_api_key', param: null } },
          `${path}, ${header}`,
        );
      }
    }
  },
);

t.test('both header forms work on every endpoint', async (t) => {
  const forms: Array<Record<string, string>> = [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }];
  for (const headers of forms) {
    const form = Object.keys(headers)[0];
    t.equal((await call('/v1/chat/completions', hello, headers)).status, 200, `chat, ${form}`);
    t.equal((await call('/v1/messages', { ...hello, max_tokens: 10 }, headers)).status, 200, `messages, ${form}`);
    t.equal((await call('/v1/messages/count_tokens', hello, headers)).status, 200, `count_tokens, ${form}`);
    t.equal(
      (await call('/v1/responses', { model: 'qwen3-8b', input: 'echo: hi' }, headers)).status,
      200,
      `responses, ${form}`,
    );
    t.equal((await call('/v1/models', undefined, headers, 'GET')).status, 200, `models, ${form}`);
  }
});

t.test('Authorization takes the Bearer scheme in any case, then any whitespace before the key', async (t) => {
  for (const authorization of [`bearer ${key}`, `BEARER \t  ${key}`, `Bearer\t${key}`]) {
    t.equal((await call('/v1/chat/completions', hello, { authorization })).status, 200, JSON.stringify(authorization));
  }
  t.equal(
    (await call('/v1/chat/completions', hello, { authorization: `Bearer${key}` })).status,
    401,
    'no space: no key',
  );
});

t.test('/health needs no key', async (t) => {
  t.equal((await call('/health', undefined, {}, 'GET')).status, 200);
});

t.test('a key works for its own organization only, whatever organization a header names', async (t) => {
  const acme = await store.orgs.get('acme');
  const globex = await store.orgs.create('globex');
  const globexKey = await store.keys.create('globex', 'theirs');
  const orgOfRequest = (response: Response): unknown => {
    const id = response.headers.get('x-request-id');
    const line = stack.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.msg === 'request' && entry.requestId === id);
    return line?.org;
  };
  const pretending = { 'openai-organization': globex.id, 'anthropic-organization': globex.id };
  const acmeCall = await call('/v1/chat/completions', hello, { authorization: `Bearer ${key}`, ...pretending });
  t.equal(acmeCall.status, 200);
  t.equal(orgOfRequest(acmeCall), acme.id, "acme's key is acme's, though the headers name globex");
  const globexCall = await call('/v1/chat/completions', hello, {
    authorization: `Bearer ${globexKey.key}`,
    'openai-organization': acme.id,
  });
  t.equal(orgOfRequest(globexCall), globex.id);

  await store.keys.revoke(globexKey.record.id);
  clock.advance(CACHE_TTL_MS);
  t.equal(
    (await call('/v1/chat/completions', hello, { authorization: `Bearer ${globexKey.key}` })).status,
    401,
    "globex's revoked key",
  );
  t.equal(
    (await call('/v1/chat/completions', hello, { authorization: `Bearer ${key}` })).status,
    200,
    "acme's key is untouched",
  );
  t.same(
    (await store.keys.list('acme')).map((record) => record.orgId),
    [acme.id],
    "acme's list has acme's key only",
  );
});

t.test('the key never reaches the upstream', async (t) => {
  const response = await call('/v1/chat/completions', hello, { 'x-api-key': key });
  const id = response.headers.get('x-request-id');
  const seen = stack.sim.requests().find((request) => request.headers['x-request-id'] === id);
  t.ok(seen);
  t.notOk(JSON.stringify(seen?.headers).includes(key));
});

t.test(
  'a key revoked in the store (no announcement) gets 401 once its cache entry expires, and stays revoked',
  async (t) => {
    const chat = async (): Promise<number> => (await call('/v1/chat/completions', hello, { 'x-api-key': key })).status;
    clock.advance(CACHE_TTL_MS);
    t.equal(await chat(), 200, 'a fresh lookup, cached from now');
    await store.keys.revoke(keyId);
    t.equal(await chat(), 200, 'the cache still trusts the lookup it made');
    clock.advance(CACHE_TTL_MS - 1);
    t.equal(await chat(), 200, 'until the entry is cache_ttl_ms old');
    clock.advance(1);
    t.equal(await chat(), 401, 'then the store is asked again');
    clock.advance(CACHE_TTL_MS);
    t.equal(await chat(), 401, 'and the key stays revoked');
  },
);
