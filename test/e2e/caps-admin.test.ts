// Setting and reading caps (issue #28; docs/billing.md, "Caps"): the operator in the admin API, an
// organization's admins in the console's API, each key's and member's caps with their use; a change
// applies from the next request on (the revocation bus drops the key from the auth cache); a member who
// is not an admin reads its own caps and changes none; another organization's key or member is a 404,
// and a bad cap a 400 naming the field.
import t from 'tap';
import { consoleEnvironment } from '../helpers/console.js';
import { signInByEmail } from '../helpers/console-member.js';
import { PATHS, requestBody } from '../helpers/metered-answers.js';
import { startSmtp } from '../helpers/smtp.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { stackForFile } from '../kit/file-stack.js';
import { AUTH_CACHED, chainOf } from '../kit/stack-presets.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const smtp = await startSmtp();
t.teardown(() => smtp.close());
const stack = await stackForFile(t, {
  // Output at a credit per thousand tokens: a request with max_tokens 10 holds 10,000 micro-credits.
  // The auth cache keeps a key for 5 s: a change that applies at once is the bus's doing.
  yaml: ['pricing: { input_per_mtok: 0, output_per_mtok: 1000 }\n', chainOf(AUTH_CACHED, 'ratelimit', 'meter')].join(
    '',
  ),
  env: {
    GATEWAY_ADMIN_TOKEN: TOKEN,
    GATEWAY_ADMIN_PORT: '0',
    ...consoleEnvironment(smtp),
    ...(await freshStoreEnvironment()),
  },
});
const store = await stack.store();
const consoleUrl = stack.gateway.consoleUrl!;
const acme = await store.orgs.create('acme', [
  { email: 'ada@acme.example', role: 'admin' },
  { email: 'bob@acme.example', role: 'member' },
]);
const globex = await store.orgs.create('globex', [{ email: 'gil@globex.example', role: 'admin' }]);
await store.orgs.addCredits(acme.id, 100_000_000);
const keyOf = async (orgId: string, name: string, who: string) =>
  store.keys.create(orgId, name, { who, address: null });
const bobs = await keyOf(acme.id, 'laptop', 'bob@acme.example');
const bobsSecond = await keyOf(acme.id, 'desktop', 'bob@acme.example');
const adas = await keyOf(acme.id, 'server', 'ada@acme.example');
const gils = await keyOf(globex.id, 'gil-key', 'gil@globex.example');

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function admin(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${stack.gateway.adminUrl!}/admin/v1/orgs${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

/** A chat request with the key: its status and, refused, its error's message. */
async function call(key: string): Promise<{ status: number; message: string | undefined }> {
  const response = await fetch(stack.gateway.url + PATHS.chat, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(requestBody('chat', false, 'Tell me about limits.', 10)),
  });
  const body = (await response.json()) as { error?: { message: string } };
  return { status: response.status, message: body.error?.message };
}

const keyCaps = (orgId: string, keyId: string) => `/${orgId}/keys/${keyId}/caps`;
const memberCaps = (orgId: string, email: string) => `/${orgId}/members/${encodeURIComponent(email)}/caps`;

t.test("the operator sets, reads and clears a key's caps, each change in the audit log", async (t) => {
  const path = keyCaps(acme.id, bobs.record.id);
  const set = await admin('PUT', path, { day_micros: 5_000_000, requests_per_minute: 60, week_micros: null });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.match(set.body, {
    scope: 'key',
    key_id: bobs.record.id,
    key_name: 'laptop',
    member: 'bob@acme.example',
    caps: { day_micros: 5_000_000, requests_per_minute: 60 },
    updated_by: 'operator',
  });
  t.same(Object.keys(set.body.caps as object), ['day_micros', 'requests_per_minute'], 'null is no cap');

  const read = await admin('GET', path);
  t.equal(read.status, 200);
  t.match(read.body.use, {
    day_micros: Number,
    day_resets_at: /^\d{4}-\d\d-\d\dT00:00:00\.000Z$/,
    week_micros: Number,
    week_resets_at: String,
    month_micros: Number,
    month_resets_at: /-01T00:00:00\.000Z$/,
    concurrent_requests: 0,
  });
  const use = read.body.use as { week_resets_at: string };
  t.equal(new Date(use.week_resets_at).getUTCDay(), 1, 'a week ends on a Monday, UTC');

  const listed = await admin('GET', `/${acme.name}/caps`);
  t.match(listed.body.caps, [{ scope: 'key', key_id: bobs.record.id, caps: { day_micros: 5_000_000 } }]);

  const cleared = await admin('DELETE', path);
  t.equal(cleared.status, 200);
  t.same(cleared.body.caps, {});
  t.equal(cleared.body.updated_at, null);
  t.same((await admin('GET', `/${acme.id}/caps`)).body.caps, []);

  const audit = (await admin('GET', `/${acme.id}/audit`)).body.entries as Array<Record<string, unknown>>;
  t.match(
    audit.filter((entry) => String(entry.action).startsWith('caps.')),
    [
      { action: 'caps.cleared', actor: 'operator', subject: bobs.record.id },
      { action: 'caps.set', actor: 'operator', subject: bobs.record.id, detail: { dayMicros: 5_000_000 } },
    ],
  );
});

t.test("the operator sets, reads and clears a member's caps, the e-mail in any case", async (t) => {
  const path = memberCaps(acme.id, 'Bob@Acme.example');
  const set = await admin('PUT', path, { month_micros: 9_000_000, concurrent_requests: 3 });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.match(set.body, {
    scope: 'member',
    email: 'bob@acme.example',
    caps: { month_micros: 9_000_000, concurrent_requests: 3 },
  });
  t.match((await admin('GET', memberCaps(acme.id, 'bob@acme.example'))).body.caps, { concurrent_requests: 3 });
  t.same((await admin('DELETE', path)).body.caps, {});
});

t.test("an unknown key or member, or another organization's key, is a 404", async (t) => {
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const body = method === 'PUT' ? { day_micros: 1 } : undefined;
    const cases: Array<[string, string]> = [
      [keyCaps(acme.id, 'key_nope'), 'key_not_found'],
      [keyCaps(acme.id, gils.record.id), 'key_not_found'],
      [memberCaps(acme.id, 'gil@globex.example'), 'member_not_found'],
      [keyCaps('org_nope', bobs.record.id), 'org_not_found'],
    ];
    for (const [path, code] of cases) {
      const answer = await admin(method, path, body);
      t.equal(answer.status, 404, `${method} ${path}`);
      t.match(answer.body, { error: { code } });
    }
  }
  t.same((await admin('GET', `/${globex.id}/caps`)).body.caps, [], 'nothing was set');
});

t.test('a bad cap is a 400 naming the field, and changes nothing', async (t) => {
  const path = keyCaps(acme.id, adas.record.id);
  await admin('PUT', path, { day_micros: 1_000_000 });
  const bodies: Array<[unknown, string]> = [
    [{ day_micros: -1 }, 'day_micros'],
    [{ week_micros: Number.MAX_SAFE_INTEGER + 2 }, 'week_micros'],
    [{ requests_per_minute: 2.5 }, 'requests_per_minute'],
    [{ concurrent_requests: '3' }, 'concurrent_requests'],
    [{ output_tokens_per_minute: 1e12 }, 'output_tokens_per_minute'],
    [{ day: 5 }, 'day'],
    [[1], '(body)'],
  ];
  for (const [body, field] of bodies) {
    const answer = await admin('PUT', path, body);
    t.equal(answer.status, 400, JSON.stringify(body));
    t.match(answer.body, { error: { code: 'invalid_request', field } });
  }
  t.same((await admin('GET', path)).body.caps, { day_micros: 1_000_000 }, 'unchanged');
  await admin('DELETE', path);
});

t.test("a key's new cap applies from the next request: day_micros 0 is a 429 naming the cap", async (t) => {
  const path = keyCaps(acme.id, bobs.record.id);
  t.equal((await call(bobs.key)).status, 200, 'the key is in the auth cache, with no caps');
  const spent = (await admin('GET', path)).body.use as { day_micros: number };
  t.ok(spent.day_micros > 0, "the key's use counts its request");

  await admin('PUT', path, { day_micros: 0 });
  const refused = await call(bobs.key);
  t.equal(refused.status, 429);
  t.match(refused.message, /Spend cap reached: the key 'laptop' may spend 0 credits a day \(day_micros 0\)/);

  await admin('DELETE', path);
  t.equal((await call(bobs.key)).status, 200, 'cleared: admitted again at once');
});

t.test("a member's new cap applies from the next request to every key the member made", async (t) => {
  t.equal((await call(bobs.key)).status, 200);
  t.equal((await call(bobsSecond.key)).status, 200);
  await admin('PUT', memberCaps(acme.id, 'bob@acme.example'), { concurrent_requests: 0 });
  for (const key of [bobs.key, bobsSecond.key]) {
    const refused = await call(key);
    t.equal(refused.status, 429);
    t.match(
      refused.message,
      /Concurrency cap reached: the member bob@acme\.example may have 0 requests in flight \(concurrent_requests\)/,
    );
  }
  t.equal((await call(adas.key)).status, 200, "another member's key is not capped");
  await admin('DELETE', memberCaps(acme.id, 'bob@acme.example'));
  t.equal((await call(bobsSecond.key)).status, 200);
});

t.test("an organization's admin sets and clears any key's and member's caps in the console", async (t) => {
  const ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.example');
  const base = `/console/v1/orgs/${acme.id}`;
  const set = await ada.call('PUT', `${base}/keys/${bobs.record.id}/caps`, { requests_per_minute: 30 });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.match(set.body, { caps: { requests_per_minute: 30 }, updated_by: 'ada@acme.example' });
  const member = await ada.call('PUT', `${base}/members/bob%40acme.example/caps`, { week_micros: 2_000_000 });
  t.equal(member.status, 200);
  t.equal(((await ada.call('GET', `${base}/caps`)).body.caps as unknown[]).length, 2);
  const bad = await ada.call('PUT', `${base}/members/bob%40acme.example/caps`, { week_micros: -5 });
  t.match(bad, { status: 400, body: { error: { field: 'week_micros' } } });

  const audit = (await ada.call('GET', `${base}/audit`)).body.entries as Array<Record<string, unknown>>;
  t.match(audit[0], { action: 'caps.set', actor: 'ada@acme.example', subject: 'bob@acme.example' });

  t.same((await ada.call('DELETE', `${base}/keys/${bobs.record.id}/caps`)).body.caps, {});
  t.same((await ada.call('DELETE', `${base}/members/bob%40acme.example/caps`)).body.caps, {});
});

t.test("a member who is not an admin reads its own caps and its keys', and changes none (403)", async (t) => {
  await admin('PUT', keyCaps(acme.id, bobs.record.id), { day_micros: 7_000_000 });
  await admin('PUT', keyCaps(acme.id, adas.record.id), { day_micros: 8_000_000 });
  await admin('PUT', memberCaps(acme.id, 'bob@acme.example'), { month_micros: 9_000_000 });
  const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.example');
  const base = `/console/v1/orgs/${acme.id}`;

  const own = await bob.call('GET', `${base}/members/bob%40acme.example/caps`);
  t.match(own, { status: 200, body: { caps: { month_micros: 9_000_000 }, use: { month_micros: Number } } });
  t.match(await bob.call('GET', `${base}/keys/${bobs.record.id}/caps`), {
    status: 200,
    body: { caps: { day_micros: 7_000_000 } },
  });
  const listed = (await bob.call('GET', `${base}/caps`)).body.caps as Array<Record<string, unknown>>;
  t.same(
    listed.map((entry) => entry.key_id ?? entry.email).sort(),
    [bobs.record.id, 'bob@acme.example'].sort(),
    'only its own',
  );

  for (const [method, path] of [
    ['GET', `${base}/keys/${adas.record.id}/caps`],
    ['GET', `${base}/members/ada%40acme.example/caps`],
    ['PUT', `${base}/keys/${bobs.record.id}/caps`],
    ['DELETE', `${base}/keys/${bobs.record.id}/caps`],
    ['PUT', `${base}/members/bob%40acme.example/caps`],
  ] as const) {
    const answer = await bob.call(method, path, method === 'PUT' ? { day_micros: 1 } : undefined);
    t.equal(answer.status, 403, `${method} ${path}`);
    t.match(answer.body, { error: { code: 'forbidden' } });
  }
  t.same((await admin('GET', keyCaps(acme.id, bobs.record.id))).body.caps, { day_micros: 7_000_000 }, 'unchanged');
  for (const path of [
    keyCaps(acme.id, bobs.record.id),
    keyCaps(acme.id, adas.record.id),
    memberCaps(acme.id, 'bob@acme.example'),
  ])
    await admin('DELETE', path);
});

t.test("another organization's key or member is a 404 in the console", async (t) => {
  const gil = await signInByEmail(consoleUrl, smtp, 'gil@globex.example');
  const own = `/console/v1/orgs/${globex.id}`;
  for (const [method, path] of [
    ['GET', `${own}/keys/${bobs.record.id}/caps`],
    ['PUT', `${own}/keys/${bobs.record.id}/caps`],
    ['GET', `${own}/members/bob%40acme.example/caps`],
    ['DELETE', `${own}/members/bob%40acme.example/caps`],
    ['GET', `/console/v1/orgs/${acme.id}/caps`],
    ['PUT', `/console/v1/orgs/${acme.id}/keys/${bobs.record.id}/caps`],
  ] as const) {
    const answer = await gil.call(method, path, method === 'PUT' ? { day_micros: 1 } : undefined);
    t.equal(answer.status, 404, `${method} ${path}`);
  }
  t.equal((await gil.call('GET', `${own}/keys/${gils.record.id}/caps`)).status, 200, 'its own');
  t.same((await admin('GET', `/${acme.id}/caps`)).body.caps, [], 'nothing was set');
});
