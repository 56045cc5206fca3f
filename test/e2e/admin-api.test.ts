// The admin API (issue #5): its own listener, the admin token or a dashboard session with CSRF protection,
// every route, its errors, and a revocation that reaches the gateway's auth cache at once.
import t from 'tap';
import { loadConfig } from '../../config/load.js';
import { startGateway } from '../../bin/start-gateway.js';
import type { Store } from '../../store/store.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const TOKEN = 'admin-token-for-tests-0123456789';
let stack: Stack;
let store: Store;
let adminUrl: string;

t.before(async () => {
  stack = await startStack({
    yaml: 'plugins:\n  - name: auth\n    options: { cache_ttl_ms: 5000 }\n',
    env: { GATEWAY_ADMIN_TOKEN: TOKEN, GATEWAY_ADMIN_PORT: '0', ...(await freshStoreEnvironment()) },
  });
  adminUrl = stack.gateway.adminUrl!;
  store = await stack.store();
});
t.teardown(async () => {
  await stack?.close();
});

// The admin API's answers, as far as the tests below read them field by field (t.match and t.same check the rest).
interface ErrorBody {
  error: { code: string; field?: string };
}
interface OrgBody {
  id: string;
  name: string;
  members: Array<{ email: string; role: string }>;
  balance_micros: number;
  spent_micros: number;
}
interface KeyRecord {
  id: string;
  revoked_at: string | null;
  last_used_at: string | null;
}
interface NewKey {
  key: string;
  record: KeyRecord;
}
interface UsageTotals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost: string;
  cost_micros: number;
}
interface UsageReport {
  from: string;
  to: string;
  daily: Array<UsageTotals & { date: string }>;
  totals: UsageTotals;
}

interface Answer<Body> {
  status: number;
  headers: Headers;
  /** The parsed JSON answer, in the shape the caller reads (an admin error unless it says otherwise). */
  body: Body;
}

async function admin<Body = ErrorBody>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
): Promise<Answer<Body>> {
  const response = await fetch(adminUrl + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

const chat = (key: string): Promise<Response> =>
  fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] }),
  });

async function login(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const response = await admin<{ csrf_token: string }>('POST', '/admin/login', { token: TOKEN }, {});
  const setCookie = response.headers.getSetCookie()[0]!;
  return { cookie: setCookie.split(';')[0]!, csrf: response.body.csrf_token, setCookie };
}

t.test('without the admin token the admin listener does not start, and the log says how to turn it on', async (t) => {
  const plain = await startStack();
  t.teardown(() => plain.close());
  t.equal(plain.gateway.adminUrl, undefined);
  t.ok(
    plain.logs.some((line) => line.includes('GATEWAY_ADMIN_TOKEN')),
    'the log names the variable',
  );
});

t.test('an admin token shorter than 16 characters stops the start with a clear message', async (t) => {
  const outcome = await startGateway(loadConfig(undefined, {}), { env: { GATEWAY_ADMIN_TOKEN: 'short-token' } }).then(
    async (gateway) => {
      await gateway.close();
      return 'started';
    },
    (error: Error) => error.message,
  );
  t.match(outcome, /GATEWAY_ADMIN_TOKEN .*at least 16 characters/);
});

t.test('the admin listener is bound to 127.0.0.1 by default', async (t) => {
  t.equal(loadConfig(undefined, {}).config.admin.host, '127.0.0.1');
  t.equal(new URL(adminUrl).hostname, '127.0.0.1');
});

t.test('the admin API needs the admin token: 401 without it, with a wrong one, or with another scheme', async (t) => {
  const refused: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer wrong-token-wrong-token' },
    { authorization: `Bearer ${TOKEN}x` },
    { authorization: `Basic ${TOKEN}` },
  ];
  for (const headers of refused) {
    const answer = await admin('GET', '/admin/v1/orgs', undefined, headers);
    t.equal(answer.status, 401, JSON.stringify(headers));
    t.equal(answer.body.error.code, 'unauthorized');
  }
  t.equal((await admin('POST', '/admin/v1/orgs', { name: 'sneaky' }, {})).status, 401);
  t.equal((await admin('GET', '/admin/v1/orgs')).status, 200);
});

t.test('POST /orgs creates an organization with its members: 201 with balance, spend, tier and members', async (t) => {
  const answer = await admin<OrgBody>('POST', '/admin/v1/orgs', {
    name: 'acme',
    members: [
      { email: 'Ada@Example.com', role: 'admin' },
      { email: 'bob@example.com', role: 'member' },
    ],
  });
  t.equal(answer.status, 201);
  t.match(answer.body, {
    id: /^org_/,
    name: 'acme',
    balance: '0',
    balance_micros: 0,
    spent: '0',
    spent_micros: 0,
    tier: {
      name: 'Start',
      requests_per_minute: 1000,
      input_tokens_per_minute: 2_000_000,
      output_tokens_per_minute: 400_000,
    },
    created_at: String,
  });
  t.same(
    answer.body.members.map((member: { email: string; role: string }) => [member.email, member.role]),
    [
      ['ada@example.com', 'admin'],
      ['bob@example.com', 'member'],
    ],
  );
});

t.test(
  'GET /orgs lists organizations with balance and spend as credits and micros, tier and creation time',
  async (t) => {
    await admin('POST', '/admin/v1/orgs', { name: 'listed' });
    const answer = await admin<{ orgs: OrgBody[] }>('GET', '/admin/v1/orgs');
    t.equal(answer.status, 200);
    const listed = answer.body.orgs.find((org: { name: string }) => org.name === 'listed');
    t.match(listed, {
      id: /^org_/,
      balance: '0',
      balance_micros: 0,
      spent: '0',
      spent_micros: 0,
      tier: { name: 'Start' },
      created_at: String,
    });
  },
);

t.test('GET /orgs/:org finds an organization by id or by URL-encoded name, with members and tier limits', async (t) => {
  const created = (await admin<OrgBody>('POST', '/admin/v1/orgs', { name: 'big co/eu' })).body;
  const byName = await admin<OrgBody>('GET', `/admin/v1/orgs/${encodeURIComponent('big co/eu')}`);
  const byId = await admin<OrgBody>('GET', `/admin/v1/orgs/${created.id}`);
  t.equal(byName.status, 200);
  t.same(byName.body, byId.body);
  t.match(byId.body, { name: 'big co/eu', members: [], tier: { name: 'Start', requests_per_minute: 1000 } });
});

t.test('members are added (or their role changed) and removed', async (t) => {
  await admin('POST', '/admin/v1/orgs', { name: 'crew' });
  const added = await admin<OrgBody>('POST', '/admin/v1/orgs/crew/members', {
    email: 'cy@example.com',
    role: 'member',
  });
  t.equal(added.status, 200);
  t.match(added.body.members, [{ email: 'cy@example.com', role: 'member' }]);
  const promoted = await admin<OrgBody>('POST', '/admin/v1/orgs/crew/members', {
    email: 'cy@example.com',
    role: 'admin',
  });
  t.match(promoted.body.members, [{ email: 'cy@example.com', role: 'admin' }]);
  const removed = await admin<OrgBody>('DELETE', `/admin/v1/orgs/crew/members/${encodeURIComponent('cy@example.com')}`);
  t.equal(removed.status, 200);
  t.same(removed.body.members, []);
  t.equal((await admin('DELETE', '/admin/v1/orgs/crew/members/cy%40example.com')).body.error.code, 'member_not_found');
});

t.test('POST /orgs/:org/credits adds an amount given as a string or a number and returns the org after', async (t) => {
  await admin('POST', '/admin/v1/orgs', { name: 'payer' });
  const first = await admin('POST', '/admin/v1/orgs/payer/credits', { amount: '12.5' });
  t.equal(first.status, 200);
  t.match(first.body, { name: 'payer', balance: '12.5', balance_micros: 12_500_000 });
  const second = await admin('POST', '/admin/v1/orgs/payer/credits', { amount: 0.25 });
  t.match(second.body, { balance: '12.75', balance_micros: 12_750_000 });
});

t.test(
  'a key created through the API works against the gateway, is listed by its last 4, and its revocation is 401 at once',
  async (t) => {
    await admin('POST', '/admin/v1/orgs', { name: 'keyholder' });
    const created = await admin<NewKey>('POST', '/admin/v1/orgs/keyholder/keys', { name: 'laptop' });
    t.equal(created.status, 201);
    const { key, record } = created.body;
    t.match(key, /^sk-svc-[A-Za-z0-9_-]{43}$/);
    t.match(record, {
      id: /^key_/,
      name: 'laptop',
      last4: key.slice(-4),
      status: 'active',
      revoked_at: null,
      last_used_at: null,
      created_at: String,
    });

    t.equal((await chat(key)).status, 200, 'the new key works (and is now in the auth cache for 5 s)');

    const listed = await admin<{ keys: Array<KeyRecord & { last4: string }> }>('GET', '/admin/v1/orgs/keyholder/keys');
    t.equal(listed.status, 200);
    t.same(
      listed.body.keys.map((k: { id: string; last4: string }) => [k.id, k.last4]),
      [[record.id, key.slice(-4)]],
    );
    t.notOk(JSON.stringify(listed.body).includes(key), 'the list never holds the key itself');
    t.match(listed.body.keys[0]?.last_used_at, String, 'last used is set by the call');

    const revoked = await admin<KeyRecord>('POST', `/admin/v1/keys/${record.id}/revoke`);
    t.equal(revoked.status, 200);
    t.match(revoked.body, { id: record.id, status: 'revoked', revoked_at: String });
    // The auth cache would trust the key for 5 s; the revocation bus drops it now.
    t.equal((await chat(key)).status, 401, 'the very next request gets 401');

    const again = await admin<KeyRecord>('POST', `/admin/v1/keys/${record.id}/revoke`);
    t.equal(again.status, 200, 'revoking again is fine');
    t.equal(again.body.revoked_at, revoked.body.revoked_at, 'and keeps the first revocation time');
  },
);

t.test('GET /orgs/:org/usage sums the ledger per UTC day over the last N days, with totals', async (t) => {
  const org = (await admin<OrgBody>('POST', '/admin/v1/orgs', { name: 'metered' })).body;
  const other = (await admin<OrgBody>('POST', '/admin/v1/orgs', { name: 'unmetered' })).body;
  const keyOf = async (name: string): Promise<string> =>
    (await admin<NewKey>('POST', `/admin/v1/orgs/${name}/keys`, { name: 'k' })).body.record.id;
  const [keyId, otherKeyId] = [await keyOf('metered'), await keyOf('unmetered')];
  const empty = await admin<UsageReport>('GET', '/admin/v1/orgs/metered/usage');
  t.equal(empty.status, 200);
  t.match(empty.body, { org_id: org.id, days: 30, daily: [], totals: { requests: 0, cost: '0', cost_micros: 0 } });

  const now = Date.now();
  const day = 86_400_000;
  let n = 0;
  const row = (orgId: string, key: string, at: number, tokens: number, costMicros: number) => ({
    id: `use_test_${n++}`,
    org_id: orgId,
    key_id: key,
    dialect: 'chat' as const,
    input_tokens: tokens,
    output_tokens: tokens * 2,
    cache_read_tokens: 1,
    cache_write_tokens: 2,
    searches: 1,
    cost_micros: costMicros,
    status: 200,
    duration_ms: 10,
    created_at: at,
  });
  await store.db
    .insertInto('usage')
    .values([
      row(org.id, keyId, now, 10, 1_500_000),
      row(org.id, keyId, now, 5, 250_000),
      row(org.id, keyId, now - day, 7, 1_000_000),
      row(org.id, keyId, now - 40 * day, 100, 9_000_000),
      row(other.id, otherKeyId, now, 1000, 50_000_000),
    ])
    .execute();
  const date = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

  const answer = await admin<UsageReport>('GET', '/admin/v1/orgs/metered/usage');
  t.equal(answer.status, 200);
  t.equal(answer.body.to, date(now));
  t.equal(answer.body.from, date(now - 29 * day));
  t.same(answer.body.daily, [
    {
      date: date(now - day),
      requests: 1,
      input_tokens: 7,
      output_tokens: 14,
      cache_read_tokens: 1,
      cache_write_tokens: 2,
      searches: 1,
      cost: '1',
      cost_micros: 1_000_000,
    },
    {
      date: date(now),
      requests: 2,
      input_tokens: 15,
      output_tokens: 30,
      cache_read_tokens: 2,
      cache_write_tokens: 4,
      searches: 2,
      cost: '1.75',
      cost_micros: 1_750_000,
    },
  ]);
  t.same(answer.body.totals, {
    requests: 3,
    input_tokens: 22,
    output_tokens: 44,
    cache_read_tokens: 3,
    cache_write_tokens: 6,
    searches: 3,
    cost: '2.75',
    cost_micros: 2_750_000,
  });

  const longer = await admin<UsageReport>('GET', `/admin/v1/orgs/${org.id}/usage?days=41`);
  t.equal(longer.body.daily.length, 3);
  t.equal(longer.body.totals.cost, '11.75');
  t.equal((await admin<UsageReport>('GET', '/admin/v1/orgs/metered/usage?days=1')).body.totals.requests, 2);
});

t.test(
  'GET /orgs/:org/usage counts settled rows only: held (still running) and released (refunded) rows are left out',
  async (t) => {
    const org = (await admin<OrgBody>('POST', '/admin/v1/orgs', { name: 'holder' })).body;
    const keyId = (await admin<NewKey>('POST', '/admin/v1/orgs/holder/keys', { name: 'k' })).body.record.id;
    const row = (id: string, state: 'held' | 'settled' | 'released', tokens: number, costMicros: number) => ({
      id,
      org_id: org.id,
      key_id: keyId,
      dialect: 'chat' as const,
      input_tokens: tokens,
      output_tokens: tokens,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      searches: 1,
      cost_micros: costMicros,
      status: 200,
      duration_ms: 10,
      created_at: Date.now(),
      state,
      hold_micros: 5_000_000,
    });
    await store.db
      .insertInto('usage')
      .values([
        row('use_state_settled', 'settled', 10, 1_000_000),
        row('use_state_held', 'held', 0, 0),
        row('use_state_released', 'released', 500, 7_000_000),
      ])
      .execute();
    const answer = await admin<UsageReport>('GET', '/admin/v1/orgs/holder/usage?days=1');
    t.equal(answer.status, 200);
    t.equal(answer.body.daily.length, 1);
    t.same(answer.body.totals, {
      requests: 1,
      input_tokens: 10,
      output_tokens: 10,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      searches: 1,
      cost: '1',
      cost_micros: 1_000_000,
    });
    t.same(answer.body.daily[0], { date: new Date().toISOString().slice(0, 10), ...answer.body.totals });
  },
);

t.test(
  'a request through the gateway with auth and meter shows in GET /orgs/:org/usage with its tokens and the cost debited',
  async (t) => {
    const metered = await startStack({
      yaml: 'plugins:\n  - name: auth\n  - name: meter\n',
      env: { GATEWAY_ADMIN_TOKEN: TOKEN, GATEWAY_ADMIN_PORT: '0' },
    });
    t.teardown(() => metered.close());
    const call = async <Body>(method: string, path: string, body?: unknown): Promise<Body> => {
      const response = await fetch(metered.gateway.adminUrl + path, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      t.ok(response.ok, `${method} ${path}`);
      return (await response.json()) as Body;
    };
    await call<OrgBody>('POST', '/admin/v1/orgs', { name: 'live' });
    await call<OrgBody>('POST', '/admin/v1/orgs/live/credits', { amount: '5' });
    const { key } = await call<NewKey>('POST', '/admin/v1/orgs/live/keys', { name: 'k' });
    t.match(
      await call<UsageReport>('GET', '/admin/v1/orgs/live/usage'),
      { daily: [], totals: { requests: 0 } },
      'nothing before the request',
    );

    const response = await fetch(`${metered.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hello there' }] }),
    });
    t.equal(response.status, 200);
    const { usage } = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };

    const report = await call<UsageReport>('GET', '/admin/v1/orgs/live/usage?days=1');
    const { totals } = report;
    t.equal(totals.requests, 1);
    t.equal(
      totals.input_tokens + totals.cache_read_tokens + totals.cache_write_tokens,
      usage.prompt_tokens,
      'input tokens as the answer counted them',
    );
    t.equal(totals.output_tokens, usage.completion_tokens, 'output tokens as the answer counted them');
    t.ok(totals.input_tokens > 0 && totals.output_tokens > 0);
    t.ok(totals.cost_micros > 0, 'a cost');
    const org = await call<OrgBody>('GET', '/admin/v1/orgs/live');
    t.equal(5_000_000 - org.balance_micros, totals.cost_micros, 'the balance was debited by the reported cost');
    t.equal(org.spent_micros, totals.cost_micros, 'and the lifetime spend grew by it');
    t.same(report.daily, [{ date: report.to, ...totals }], 'one day: today');
  },
);

t.test('bad input is 400 invalid_request naming the field', async (t) => {
  await admin('POST', '/admin/v1/orgs', { name: 'strict' });
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/admin/v1/orgs', {}, 'name'],
    ['POST', '/admin/v1/orgs', { name: 42 }, 'name'],
    ['POST', '/admin/v1/orgs', { name: '' }, 'name'],
    ['POST', '/admin/v1/orgs', { name: 'org_looks_like_an_id' }, 'name'],
    ['POST', '/admin/v1/orgs', { name: 'x', members: 'ada' }, 'members'],
    ['POST', '/admin/v1/orgs', { name: 'x', members: [{ email: 'not-an-email', role: 'admin' }] }, 'members[0].email'],
    [
      'POST',
      '/admin/v1/orgs',
      {
        name: 'x',
        members: [
          { email: 'a@b.c', role: 'admin' },
          { email: 'd@e.f', role: 'owner' },
        ],
      },
      'members[1].role',
    ],
    ['POST', '/admin/v1/orgs', [], '(body)'],
    ['POST', '/admin/v1/orgs/strict/members', { email: 'nope', role: 'member' }, 'email'],
    ['POST', '/admin/v1/orgs/strict/members', { email: 'a@b.c' }, 'role'],
    ['POST', '/admin/v1/orgs/strict/credits', {}, 'amount'],
    ['POST', '/admin/v1/orgs/strict/credits', { amount: '-5' }, 'amount'],
    ['POST', '/admin/v1/orgs/strict/credits', { amount: 'ten' }, 'amount'],
    ['POST', '/admin/v1/orgs/strict/credits', { amount: '0' }, 'amount'],
    ['POST', '/admin/v1/orgs/strict/credits', { amount: '1.1234567' }, 'amount'],
    ['POST', '/admin/v1/orgs/strict/keys', { name: '  ' }, 'name'],
    ['POST', '/admin/v1/orgs/strict/keys', { label: 'x' }, 'name'],
    ['GET', '/admin/v1/orgs/strict/usage?days=0', undefined, 'days'],
    ['GET', '/admin/v1/orgs/strict/usage?days=367', undefined, 'days'],
    ['GET', '/admin/v1/orgs/strict/usage?days=7.5', undefined, 'days'],
  ];
  for (const [method, path, body, field] of cases) {
    const answer = await admin(method, path, body);
    t.equal(answer.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
    t.equal(answer.body.error.code, 'invalid_request');
    t.equal(answer.body.error.field, field, `${path} ${JSON.stringify(body)} names ${field}`);
  }
  t.same(
    (await admin<{ orgs: OrgBody[] }>('GET', '/admin/v1/orgs')).body.orgs.filter(
      (org: { name: string }) => org.name === 'x',
    ),
    [],
    'nothing was created',
  );
});

t.test('malformed JSON is 400 malformed_json and a body over 64 KiB is 413', async (t) => {
  const malformed = await admin('POST', '/admin/v1/orgs', '{"name": ');
  t.equal(malformed.status, 400);
  t.equal(malformed.body.error.code, 'malformed_json');
  const empty = await admin('POST', '/admin/v1/orgs', '');
  t.equal(empty.status, 400);
  const large = await admin('POST', '/admin/v1/orgs', { name: 'big', padding: 'x'.repeat(70_000) });
  t.equal(large.status, 413);
  t.equal(large.body.error.code, 'body_too_large');
});

t.test('an unknown organization, key or member is 404', async (t) => {
  for (const [method, path, body] of [
    ['GET', '/admin/v1/orgs/nobody'],
    ['GET', '/admin/v1/orgs/org_missing/keys'],
    ['POST', '/admin/v1/orgs/nobody/keys', { name: 'k' }],
    ['POST', '/admin/v1/orgs/nobody/credits', { amount: '1' }],
    ['POST', '/admin/v1/orgs/nobody/members', { email: 'a@b.c', role: 'member' }],
    ['GET', '/admin/v1/orgs/nobody/usage'],
  ] as Array<[string, string, unknown?]>) {
    const answer = await admin(method, path, body);
    t.equal(answer.status, 404, path);
    t.equal(answer.body.error.code, 'org_not_found', path);
  }
  const key = await admin('POST', '/admin/v1/keys/key_missing/revoke');
  t.equal(key.status, 404);
  t.equal(key.body.error.code, 'key_not_found');
});

t.test('creating an organization whose name exists is 409 org_exists', async (t) => {
  t.equal((await admin('POST', '/admin/v1/orgs', { name: 'twice' })).status, 201);
  const answer = await admin('POST', '/admin/v1/orgs', { name: 'twice' });
  t.equal(answer.status, 409);
  t.equal(answer.body.error.code, 'org_exists');
});

t.test('an unknown route is 404 and a wrong method 405 with Allow, both in the admin error shape', async (t) => {
  const unknown = await admin('GET', '/admin/v1/nothing');
  t.equal(unknown.status, 404);
  t.match(unknown.body, { error: { code: 'not_found', message: String } });
  const wrong = await admin('PUT', '/admin/v1/orgs', { name: 'x' });
  t.equal(wrong.status, 405);
  t.equal(wrong.body.error.code, 'method_not_allowed');
  t.equal(wrong.headers.get('allow'), 'GET, POST');
  t.equal((await admin('GET', '/nothing.html', undefined, {})).status, 404);
});

t.test(
  'login sets an HttpOnly, SameSite=Strict session cookie (not Secure over plain HTTP) and returns the CSRF token',
  async (t) => {
    const { setCookie, csrf } = await login();
    t.match(setCookie, /^gw_admin_session=[A-Za-z0-9_-]{43};/);
    t.match(setCookie, /; HttpOnly/);
    t.match(setCookie, /; SameSite=Strict/);
    t.match(setCookie, /; Path=\//);
    t.notMatch(setCookie, /Secure/);
    t.match(csrf, /^[A-Za-z0-9_-]{43}$/);
  },
);

t.test('a wrong token at login is 401 and sets no cookie', async (t) => {
  const answer = await admin('POST', '/admin/login', { token: 'not-the-admin-token' }, {});
  t.equal(answer.status, 401);
  t.same(answer.headers.getSetCookie(), []);
});

t.test('a session cookie reads the API, and GET /admin/session returns the same CSRF token', async (t) => {
  const { cookie, csrf } = await login();
  t.equal((await admin('GET', '/admin/v1/orgs', undefined, { cookie })).status, 200);
  t.same((await admin<{ csrf_token: string }>('GET', '/admin/session', undefined, { cookie })).body.csrf_token, csrf);
  t.equal((await admin('GET', '/admin/session', undefined, { cookie: 'gw_admin_session=forged' })).status, 401);
});

t.test('CSRF: a change authenticated by cookie without x-csrf-token, or with a wrong one, is 403', async (t) => {
  const { cookie } = await login();
  const without = await admin('POST', '/admin/v1/orgs', { name: 'csrf-a' }, { cookie });
  t.equal(without.status, 403);
  t.equal(without.body.error.code, 'forbidden');
  t.equal(
    (await admin('POST', '/admin/v1/orgs', { name: 'csrf-a' }, { cookie, 'x-csrf-token': 'guessed' })).status,
    403,
  );
  t.equal((await admin('GET', '/admin/v1/orgs/csrf-a', undefined, { cookie })).status, 404, 'nothing was created');
});

t.test('CSRF: a change authenticated by cookie from a foreign Origin is 403, even with the CSRF token', async (t) => {
  const { cookie, csrf } = await login();
  const foreign = await admin(
    'POST',
    '/admin/v1/orgs',
    { name: 'csrf-b' },
    { cookie, 'x-csrf-token': csrf, origin: 'http://evil.example' },
  );
  t.equal(foreign.status, 403);
  const own = await admin(
    'POST',
    '/admin/v1/orgs',
    { name: 'csrf-b' },
    { cookie, 'x-csrf-token': csrf, origin: new URL(adminUrl).origin },
  );
  t.equal(own.status, 201, "the listener's own origin with the token is accepted");
  t.equal(
    (await admin('POST', '/admin/login', { token: TOKEN }, { origin: 'http://evil.example' })).status,
    403,
    'login from a foreign origin too',
  );
});

t.test('logout ends the session', async (t) => {
  const { cookie, csrf } = await login();
  const out = await admin('POST', '/admin/logout', undefined, { cookie, 'x-csrf-token': csrf });
  t.equal(out.status, 204);
  t.match(out.headers.getSetCookie()[0], /Max-Age=0/);
  t.equal((await admin('GET', '/admin/v1/orgs', undefined, { cookie })).status, 401);
});

t.test(
  'answers carry no-store, a self-only CSP, no framing and no referrer; the dashboard files are served',
  async (t) => {
    for (const path of ['/', '/app.js', '/usage-chart.js', '/style.css', '/admin/v1/orgs']) {
      const response = await fetch(adminUrl + path, { headers: { authorization: `Bearer ${TOKEN}` } });
      t.equal(response.status, 200, path);
      t.match(response.headers.get('content-security-policy'), /^default-src 'self'/, path);
      t.equal(response.headers.get('x-frame-options'), 'DENY', path);
      t.equal(response.headers.get('referrer-policy'), 'no-referrer', path);
      t.equal(response.headers.get('cache-control'), 'no-store', path);
    }
    const page = await fetch(adminUrl + '/');
    t.match(page.headers.get('content-type'), /^text\/html/);
    t.notMatch(await page.text(), /<script>|<script(?![^>]*src=)[^>]*>|\son\w+=/, 'no inline scripts or handlers');
    t.match((await fetch(adminUrl + '/app.js')).headers.get('content-type'), /^text\/javascript/);
  },
);

t.test(
  "GET and PUT /orgs/:org/service-tiers show and set an organization's default tier and the tiers it may use",
  async (t) => {
    await store.orgs.create('tiered');
    t.same((await admin('GET', '/admin/v1/orgs/tiered/service-tiers')).body, { default: 'default', allowed: null });
    const set = await admin('PUT', '/admin/v1/orgs/tiered/service-tiers', { default: 'flex', allowed: ['flex'] });
    t.equal(set.status, 200);
    t.same(set.body, { default: 'flex', allowed: ['flex'] });
    t.same((await store.orgs.get('tiered')).serviceTiers, { defaultTier: 'flex', allowed: ['flex'] });
    const notAllowed = await admin('PUT', '/admin/v1/orgs/tiered/service-tiers', { default: 'priority', allowed: [] });
    t.equal(notAllowed.status, 400);
    t.match(notAllowed.body, { error: { code: 'invalid_request', field: 'allowed' } });
    const unknown = await admin('PUT', '/admin/v1/orgs/tiered/service-tiers', { default: 'scale' });
    t.match(unknown.body, { error: { code: 'invalid_request', field: 'default' } });
    const reset = await admin('PUT', '/admin/v1/orgs/tiered/service-tiers', {});
    t.same(reset.body, { default: 'default', allowed: null }, 'an empty body resets both');
    t.match((await store.audit.list((await store.orgs.get('tiered')).id))[0], { action: 'service_tiers.set' });
  },
);
