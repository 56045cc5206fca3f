// The customers' console's API (docs/console.md), as the pages use it: sign-in by e-mail link through a
// real SMTP round trip, what a member sees and may do in its organizations, what only an organization
// admin may do, the audit log, and the session's rules (CSRF, sign-out on every node).
import t from 'tap';
import type { Store } from '../../store/store.js';
import { TestClock } from '../helpers/clock.js';
import {
  consoleCall,
  linkTokenFor,
  memberWith,
  redeemLink,
  signInByEmail,
  type ConsoleMember,
} from '../helpers/console-member.js';
import { mailTo } from '../helpers/console.js';
import { chatStatus } from '../helpers/key-use.js';
import { startSmtp, type RunningSmtp } from '../helpers/smtp.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const YAML = `
plugins:
  - name: auth
    options: { cache_ttl_ms: 5000 }
  - name: ratelimit
console:
  port: 0
  throttle: { window_ms: 900000, per_email: 1000, per_address: 1000 }
`;

let smtp: RunningSmtp;
let storeEnvironment: Record<string, string>;
let stack: Stack;
let store: Store;
let consoleUrl: string;
let acme: string;
let other: string;

t.before(async () => {
  smtp = await startSmtp();
  storeEnvironment = await freshStoreEnvironment();
  stack = await startStack({
    yaml: YAML,
    env: { GATEWAY_SMTP_URL: smtp.url, ...storeEnvironment },
    // The auth cache's clock stands still: only the revocation bus can drop a key from it.
    now: new TestClock().now,
  });
  consoleUrl = stack.gateway.consoleUrl!;
  store = await stack.store();
  acme = (
    await store.orgs.create('acme', [
      { email: 'ada@acme.test', role: 'admin' },
      { email: 'bob@acme.test', role: 'member' },
    ])
  ).id;
  await store.orgs.addCredits(acme, 10_000_000);
  other = (await store.orgs.create('other', [{ email: 'carol@other.test', role: 'admin' }])).id;
});
t.teardown(async () => {
  await stack?.close();
  await smtp?.close();
});

const chat = (key: string): Promise<number> => chatStatus(stack.gateway.url, key);

t.test(
  'sign-in by e-mail link: the link mailed to a member signs it in, and the session lists its organizations',
  async (t) => {
    const ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.test');
    const mail = smtp.received.findLast((mail) => mail.to.includes('ada@acme.test'))!;
    t.match(mail.text, new RegExp(`${consoleUrl}/#/link/[A-Za-z0-9_-]{43}`), 'the link points at the console');
    t.match(mail.text, /works once, within 15 minutes/);
    const session = await ada.call<{ email: string; orgs: unknown[] }>('GET', '/console/v1/session');
    t.equal(session.status, 200);
    t.equal(session.body.email, 'ada@acme.test');
    t.same(session.body.orgs, [{ id: acme, name: 'acme', role: 'admin' }]);
  },
);

t.test('the session cookie is HttpOnly and SameSite=Strict, and a signed-out browser gets 401', async (t) => {
  await consoleCall(consoleUrl, 'POST', '/console/sign-in/email', { email: 'bob@acme.test' });
  const token = await linkTokenFor(smtp, 'bob@acme.test', smtp.received.length);
  const redeemed = await consoleCall(consoleUrl, 'POST', '/console/sign-in/link', { token });
  t.match(
    redeemed.headers.get('set-cookie'),
    /^gw_console_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+$/,
  );
  t.equal((await consoleCall(consoleUrl, 'GET', '/console/v1/session')).status, 401);
});

t.test('asking for a link answers the same for an unknown address, and mails nothing to it', async (t) => {
  const unknown = await consoleCall(consoleUrl, 'POST', '/console/sign-in/email', { email: 'nobody@acme.test' });
  const known = await consoleCall(consoleUrl, 'POST', '/console/sign-in/email', { email: 'carol@other.test' });
  t.equal(unknown.status, 202);
  t.same(unknown.body, known.body);
  t.same(unknown.body, { sent: true });
  await smtp.mail((mail) => mail.to.includes('carol@other.test'));
  t.notOk(
    smtp.received.some((mail) => mail.to.includes('nobody@acme.test')),
    'no mail to the unknown address',
  );
  const links = await store.db.selectFrom('sign_in_links').select('email').execute();
  t.notOk(
    links.some((link) => link.email === 'nobody@acme.test'),
    'no link made for it',
  );
});

t.test("the store keeps only the SHA-256 of a link's token", async (t) => {
  const before = smtp.received.length;
  await consoleCall(consoleUrl, 'POST', '/console/sign-in/email', { email: 'carol@other.test' });
  const token = await linkTokenFor(smtp, 'carol@other.test', before);
  const rows = await store.db.selectFrom('sign_in_links').select('token_hash').execute();
  t.notOk(rows.some((row) => row.token_hash.includes(token) || token.includes(row.token_hash)));
  const { createHash } = await import('node:crypto');
  t.ok(rows.some((row) => row.token_hash === createHash('sha256').update(token).digest('hex')));
});

t.test('a replayed link is refused', async (t) => {
  const before = smtp.received.length;
  await consoleCall(consoleUrl, 'POST', '/console/sign-in/email', { email: 'carol@other.test' });
  const token = await linkTokenFor(smtp, 'carol@other.test', before);
  await redeemLink(consoleUrl, 'carol@other.test', token);
  const again = await consoleCall(consoleUrl, 'POST', '/console/sign-in/link', { token });
  t.equal(again.status, 400);
  t.equal((again.body as { error: { code: string } }).error.code, 'link_invalid');
  t.notOk(again.headers.get('set-cookie'));
});

t.test('an expired link is refused', async (t) => {
  const before = smtp.received.length;
  await consoleCall(consoleUrl, 'POST', '/console/sign-in/email', { email: 'carol@other.test' });
  const token = await linkTokenFor(smtp, 'carol@other.test', before);
  // Fifteen minutes pass: the row's expiry is behind us.
  await store.db
    .updateTable('sign_in_links')
    .set({ expires_at: Date.now() - 1 })
    .where('used_at', 'is', null)
    .execute();
  const late = await consoleCall(consoleUrl, 'POST', '/console/sign-in/link', { token });
  t.equal(late.status, 400);
  t.equal((late.body as { error: { code: string } }).error.code, 'link_invalid');
});

t.test('requests for links are throttled per e-mail address and per client address', async (t) => {
  const small = await startStack({
    yaml: "console:\n  port: 0\n  trusted_proxies: ['127.0.0.1']\n  throttle: { window_ms: 900000, per_email: 2, per_address: 5 }\n",
    env: { GATEWAY_SMTP_URL: smtp.url, ...(await freshStoreEnvironment()) },
  });
  t.teardown(() => small.close());
  const ask = (email: string) => consoleCall(small.gateway.consoleUrl!, 'POST', '/console/sign-in/email', { email });

  t.test('per e-mail address', async (t) => {
    t.equal((await ask('x@x.test')).status, 202);
    t.equal((await ask('x@x.test')).status, 202);
    const third = await ask('x@x.test');
    t.equal(third.status, 429);
    t.equal(third.headers.get('retry-after'), '900');
    t.equal((await ask('y@x.test')).status, 202, 'another address is not held back');
  });

  t.test('per client address', async (t) => {
    // Three requests so far (the refused one is not counted): two more are allowed.
    t.equal((await ask('a@x.test')).status, 202);
    t.equal((await ask('b@x.test')).status, 202);
    t.equal((await ask('c@x.test')).status, 429, 'a sixth request from the same client, for a new address');
  });

  t.test('behind a trusted proxy, per forwarded client', async (t) => {
    const forwarded = await consoleCall(
      small.gateway.consoleUrl!,
      'POST',
      '/console/sign-in/email',
      { email: 'c@x.test' },
      { 'x-forwarded-for': '198.51.100.7' },
    );
    t.equal(forwarded.status, 202, 'another client behind the same proxy is not held back');
  });
});

t.test('bad input is a 400 that names the field', async (t) => {
  const noEmail = await consoleCall<{ error: { field: string } }>(consoleUrl, 'POST', '/console/sign-in/email', {
    email: 'not an address',
  });
  t.equal(noEmail.status, 400);
  t.equal(noEmail.body.error.field, 'email');
  const noToken = await consoleCall<{ error: { field: string } }>(consoleUrl, 'POST', '/console/sign-in/link', {
    token: 7,
  });
  t.equal(noToken.status, 400);
  t.equal(noToken.body.error.field, 'token');
  const ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.test');
  const badRole = await ada.call<{ error: { field: string } }>('POST', `/console/v1/orgs/${acme}/members`, {
    email: 'dan@acme.test',
    role: 'owner',
  });
  t.equal(badRole.status, 400);
  t.equal(badRole.body.error.field, 'role');
  const badDays = await ada.call<{ error: { field: string } }>('GET', `/console/v1/orgs/${acme}/usage?days=0`);
  t.equal(badDays.body.error.field, 'days');
});

t.test(
  "a member sees its organization: balance, spend, tier and its limits, and the window's use of the three limits",
  async (t) => {
    const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
    const created = await bob.call<{ key: string }>('POST', `/console/v1/orgs/${acme}/keys`, { name: 'window' });
    t.equal(await chat(created.body.key), 200);
    const overview = await bob.call<{
      role: string;
      balance_micros: number;
      tier: { name: string; requests_per_minute: number };
      window: Record<string, { used: number; limit: number; reset_at: string }>;
    }>('GET', `/console/v1/orgs/${acme}`);
    t.equal(overview.status, 200);
    t.equal(overview.body.role, 'member');
    t.equal(overview.body.balance_micros, 10_000_000);
    t.equal(overview.body.tier.name, 'Start');
    t.same(Object.keys(overview.body.window), ['requests', 'input_tokens', 'output_tokens']);
    t.ok(overview.body.window.requests!.used >= 1, 'the request counted');
    t.equal(overview.body.window.requests!.limit, overview.body.tier.requests_per_minute);
    t.ok(overview.body.window.output_tokens!.used >= 1, 'its output tokens counted');
    t.ok(Date.parse(overview.body.window.requests!.reset_at) > 0);
    const usage = await bob.call<{ totals: { requests: number } }>('GET', `/console/v1/orgs/${acme}/usage?days=7`);
    t.equal(usage.status, 200);
    t.ok('totals' in usage.body);
  },
);

t.test('a member creates a key, shown once, that works on the gateway, and revokes it: 401 at once', async (t) => {
  const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
  const created = await bob.call<{ key: string; record: { id: string; created_by: string } }>(
    'POST',
    `/console/v1/orgs/${acme}/keys`,
    { name: 'laptop' },
  );
  t.equal(created.status, 201);
  t.match(created.body.key, /^sk-svc-/);
  t.equal(created.body.record.created_by, 'bob@acme.test');
  const listed = await bob.call<{ keys: Array<Record<string, unknown>> }>('GET', `/console/v1/orgs/${acme}/keys`);
  const row = listed.body.keys.find((key) => key.id === created.body.record.id)!;
  t.notOk(JSON.stringify(listed.body).includes(created.body.key), 'the list never shows the key again');
  t.equal(row.can_revoke, true);
  t.equal(await chat(created.body.key), 200);
  const revoked = await bob.call<{ status: string }>(
    'POST',
    `/console/v1/orgs/${acme}/keys/${created.body.record.id}/revoke`,
  );
  t.equal(revoked.status, 200);
  t.equal(revoked.body.status, 'revoked');
  t.equal(await chat(created.body.key), 401);
});

t.test("a member cannot revoke another member's key; an organization admin can", async (t) => {
  const ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.test');
  const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
  const adasKey = await ada.call<{ record: { id: string } }>('POST', `/console/v1/orgs/${acme}/keys`, {
    name: 'ada-ci',
  });
  const bobsKey = await bob.call<{ key: string; record: { id: string } }>('POST', `/console/v1/orgs/${acme}/keys`, {
    name: 'bob-ci',
  });
  const listedForBob = await bob.call<{ keys: Array<{ id: string; can_revoke: boolean }> }>(
    'GET',
    `/console/v1/orgs/${acme}/keys`,
  );
  t.equal(listedForBob.body.keys.find((key) => key.id === adasKey.body.record.id)!.can_revoke, false);
  const refused = await bob.call<{ error: { code: string } }>(
    'POST',
    `/console/v1/orgs/${acme}/keys/${adasKey.body.record.id}/revoke`,
  );
  t.equal(refused.status, 403);
  t.equal(refused.body.error.code, 'forbidden');
  t.equal((await store.keys.get(adasKey.body.record.id)).status, 'active');
  const byAdmin = await ada.call('POST', `/console/v1/orgs/${acme}/keys/${bobsKey.body.record.id}/revoke`);
  t.equal(byAdmin.status, 200);
  t.equal(await chat(bobsKey.body.key), 401);
});

t.test(
  'a member of one organization gets 404 for every call about another, as for one that does not exist',
  async (t) => {
    const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
    const carol = await signInByEmail(consoleUrl, smtp, 'carol@other.test');
    const carolsKey = await carol.call<{ record: { id: string } }>('POST', `/console/v1/orgs/${other}/keys`, {
      name: 'carol',
    });
    const calls: Array<[string, string, unknown?]> = [
      ['GET', ''],
      ['GET', '/usage'],
      ['GET', '/keys'],
      ['POST', '/keys', { name: 'intruder' }],
      ['POST', `/keys/${carolsKey.body.record.id}/revoke`],
      ['GET', '/members'],
      ['POST', '/members', { email: 'bob@acme.test', role: 'admin' }],
      ['POST', '/members/carol%40other.test/role', { role: 'member' }],
      ['DELETE', '/members/carol%40other.test'],
      ['GET', '/audit'],
    ];
    for (const orgId of [other, 'other', 'org_doesnotexist00000000']) {
      for (const [method, path, body] of calls) {
        const answer = await bob.call<{ error: { code: string } }>(method, `/console/v1/orgs/${orgId}${path}`, body);
        t.equal(answer.status, 404, `${method} ${orgId}${path}`);
        t.equal(answer.body.error.code, 'org_not_found');
      }
    }
    t.equal((await store.keys.get(carolsKey.body.record.id)).status, 'active');
    t.same(
      (await store.orgs.members(other)).map((member) => member.email),
      ['carol@other.test'],
    );
    // A key of another organization through one's own organization's path is not found either.
    const viaOwn = await bob.call('POST', `/console/v1/orgs/${acme}/keys/${carolsKey.body.record.id}/revoke`);
    t.equal(viaOwn.status, 404);
  },
);

t.test(
  'an organization admin invites a member by e-mail, changes its role and removes it; a member cannot',
  async (t) => {
    const ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.test');
    const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
    const before = smtp.received.length;
    const invited = await ada.call<{ mailed: boolean }>('POST', `/console/v1/orgs/${acme}/members`, {
      email: 'Dan@Acme.test',
      role: 'member',
    });
    t.equal(invited.status, 201);
    t.equal(invited.body.mailed, true);
    const invitation = await mailTo(smtp, 'dan@acme.test', before);
    t.match(invitation.headers.subject, /invited to acme/);
    t.match(invitation.text, /ada@acme\.test invited you to the organization "acme"/);
    const dan = await redeemLink(consoleUrl, 'dan@acme.test', await linkTokenFor(smtp, 'dan@acme.test', before));
    t.same((await dan.call<{ orgs: unknown[] }>('GET', '/console/v1/session')).body.orgs, [
      { id: acme, name: 'acme', role: 'member' },
    ]);
    t.equal(
      (await ada.call('POST', `/console/v1/orgs/${acme}/members`, { email: 'dan@acme.test', role: 'admin' })).status,
      409,
      'inviting a member twice',
    );
    for (const [method, path, body] of [
      ['POST', '/members', { email: 'eve@acme.test', role: 'member' }],
      ['POST', '/members/dan%40acme.test/role', { role: 'admin' }],
      ['DELETE', '/members/dan%40acme.test'],
      ['GET', '/audit'],
    ] as const) {
      const answer = await bob.call(method, `/console/v1/orgs/${acme}${path}`, body);
      t.equal(answer.status, 403, `a member: ${method} ${path}`);
    }
    t.equal(
      (await ada.call('POST', `/console/v1/orgs/${acme}/members/dan%40acme.test/role`, { role: 'admin' })).status,
      200,
    );
    t.equal(await store.orgs.roleOf(acme, 'dan@acme.test'), 'admin');
    t.equal((await ada.call('DELETE', `/console/v1/orgs/${acme}/members/dan%40acme.test`)).status, 200);
    t.equal(await store.orgs.roleOf(acme, 'dan@acme.test'), undefined);
    t.equal((await dan.call('GET', `/console/v1/orgs/${acme}`)).status, 404, 'a removed member sees the org no more');
  },
);

t.test('an organization keeps at least one admin', async (t) => {
  const carol = await signInByEmail(consoleUrl, smtp, 'carol@other.test');
  const demote = await carol.call<{ error: { code: string } }>(
    'POST',
    `/console/v1/orgs/${other}/members/carol%40other.test/role`,
    { role: 'member' },
  );
  t.equal(demote.status, 409);
  t.equal(demote.body.error.code, 'last_admin');
  const remove = await carol.call<{ error: { code: string } }>(
    'DELETE',
    `/console/v1/orgs/${other}/members/carol%40other.test`,
  );
  t.equal(remove.body.error.code, 'last_admin');
  t.equal(await store.orgs.roleOf(other, 'carol@other.test'), 'admin');
});

t.test('the audit log records who did what from where, for admins, newest first', async (t) => {
  const ada = await signInByEmail(consoleUrl, smtp, 'ada@acme.test');
  const key = await ada.call<{ record: { id: string } }>('POST', `/console/v1/orgs/${acme}/keys`, { name: 'audited' });
  await ada.call('POST', `/console/v1/orgs/${acme}/keys/${key.body.record.id}/revoke`);
  const audit = await ada.call<{
    entries: Array<{
      action: string;
      actor: string;
      address: string;
      subject: string;
      detail: Record<string, unknown>;
    }>;
  }>('GET', `/console/v1/orgs/${acme}/audit`);
  t.equal(audit.status, 200);
  const [revoked, created] = audit.body.entries;
  t.match(revoked, {
    action: 'key.revoked',
    actor: 'ada@acme.test',
    subject: key.body.record.id,
    detail: { name: 'audited' },
  });
  t.match(created, { action: 'key.created', actor: 'ada@acme.test', subject: key.body.record.id });
  t.match(revoked!.address, /127\.0\.0\.1/);
  const actions = new Set(audit.body.entries.map((entry) => entry.action));
  for (const action of ['org.created', 'member.added', 'member.role_changed', 'member.removed', 'credits.added'])
    t.ok(actions.has(action), action);
});

t.test("a change without the session's CSRF token, or from another origin, is refused", async (t) => {
  const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
  const noToken = await consoleCall(
    consoleUrl,
    'POST',
    `/console/v1/orgs/${acme}/keys`,
    { name: 'x' },
    { cookie: bob.cookie },
  );
  t.equal(noToken.status, 403);
  const wrongToken = await consoleCall(
    consoleUrl,
    'POST',
    `/console/v1/orgs/${acme}/keys`,
    { name: 'x' },
    {
      cookie: bob.cookie,
      'x-csrf-token': 'forged',
    },
  );
  t.equal(wrongToken.status, 403);
  const foreign = await consoleCall(
    consoleUrl,
    'POST',
    `/console/v1/orgs/${acme}/keys`,
    { name: 'x' },
    {
      cookie: bob.cookie,
      'x-csrf-token': bob.csrf,
      origin: 'https://evil.example',
    },
  );
  t.equal(foreign.status, 403);
  t.notOk((await store.keys.list(acme)).some((key) => key.name === 'x'));
});

t.test('signing out ends the session on every node', async (t) => {
  const second = await startStack({ yaml: YAML, env: { GATEWAY_SMTP_URL: smtp.url, ...storeEnvironment } });
  t.teardown(() => second.close());
  const bob = await signInByEmail(consoleUrl, smtp, 'bob@acme.test');
  const onSecond: ConsoleMember = memberWith(second.gateway.consoleUrl!, bob.email, bob.cookie, bob.csrf);
  t.equal((await onSecond.call('GET', `/console/v1/orgs/${acme}`)).status, 200, 'the other node accepts the session');
  const signedOut = await onSecond.call('POST', '/console/v1/sign-out');
  t.equal(signedOut.status, 204);
  t.match(signedOut.headers.get('set-cookie'), /^gw_console_session=; .*Max-Age=0/);
  t.equal((await bob.call('GET', '/console/v1/session')).status, 401, 'dead on the first node');
  t.equal((await onSecond.call('GET', `/console/v1/orgs/${acme}`)).status, 401, 'dead on the second');
});
