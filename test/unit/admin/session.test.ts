// Browser sessions (admin/session.ts over store/web-sessions.ts) and the admin token rules (admin/token.ts).
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { csrfMatches, Sessions } from '../../../admin/session.js';
import { readAdminToken, secretMatcher } from '../../../admin/token.js';
import { secretHash } from '../../../store/secret-hash.js';
import { openStore } from '../../../store/store.js';
import { WebSessions } from '../../../store/web-sessions.js';
import { freshStoreOptions } from '../../helpers/test-store.js';

const request = (headers: IncomingMessage['headers'] = {}): IncomingMessage =>
  ({ headers, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;
const withCookie = (cookie: string): IncomingMessage => request({ cookie });

const store = await openStore(await freshStoreOptions());
t.teardown(() => store.close());
const OPERATOR = { cookie: 'gw_admin_session', kind: 'operator', ttlMs: 3_600_000 } as const;
const sessions = new Sessions(OPERATOR, async () => store);
const idOf = (setCookie: string): string => /^gw_admin_session=([^;]+);/.exec(setCookie)![1]!;

t.test('a session is found by its cookie until its TTL runs out, then never again', async (t) => {
  let now = 1_000_000;
  const clocked = new WebSessions(store.db, () => now);
  const { id } = await clocked.create('operator', null, 60_000, null);
  t.ok(await clocked.find(id, 'operator'));
  now += 59_999;
  t.ok(await clocked.find(id, 'operator'));
  now += 1;
  t.equal(await clocked.find(id, 'operator'), undefined);
});

t.test('the store keeps only the SHA-256 of a session id, and a session of one kind is not another kind', async (t) => {
  const { setCookie } = await sessions.create(null, request());
  const id = idOf(setCookie);
  const rows = await store.db.selectFrom('web_sessions').select('id_hash').execute();
  t.notOk(
    rows.some((row) => row.id_hash === id),
    'no row holds the id',
  );
  t.ok(rows.some((row) => row.id_hash === secretHash(id)));
  t.equal(await store.sessions.find(id, 'member'), undefined);
});

t.test('session ids and CSRF tokens are 32 random bytes, different for every session', async (t) => {
  const [a, b] = [await sessions.create(null, request()), await sessions.create(null, request())];
  t.match(idOf(a.setCookie), /^[A-Za-z0-9_-]{43}$/);
  t.match(a.session.csrfToken, /^[A-Za-z0-9_-]{43}$/);
  t.not(idOf(a.setCookie), idOf(b.setCookie));
  t.not(a.session.csrfToken, b.session.csrfToken);
  t.ok(csrfMatches(a.session, a.session.csrfToken));
  t.notOk(csrfMatches(a.session, b.session.csrfToken));
});

t.test('a signed-out session is gone from the store', async (t) => {
  const { setCookie } = await sessions.create(null, request());
  const req = withCookie(`theme=dark; ${setCookie.split(';')[0]}`);
  const signedIn = await sessions.fromRequest(req);
  t.ok(signedIn);
  await sessions.end(signedIn!);
  t.equal(await sessions.fromRequest(req), undefined);
});

t.test('creating a session sweeps out the expired ones', async (t) => {
  let now = 10_000_000_000_000;
  const clocked = new WebSessions(store.db, () => now);
  await clocked.create('member', 'a@example.com', 60_000, null);
  now += 60_000;
  await clocked.create('member', 'b@example.com', 60_000, null);
  const rows = await store.db.selectFrom('web_sessions').select('email').where('kind', '=', 'member').execute();
  t.same(
    rows.map((row) => row.email),
    ['b@example.com'],
  );
});

t.test('the cookie is HttpOnly, SameSite=Strict, Path=/, lasts the session, and is Secure only over TLS', async (t) => {
  const plain = await sessions.create(null, request());
  t.match(
    plain.setCookie,
    /^gw_admin_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=(3599|3600)$/,
  );
  const behindTls = await sessions.create(null, request({ 'x-forwarded-proto': 'https' }));
  t.match(behindTls.setCookie, /; Secure$/);
  t.equal(sessions.clearedCookie(request()), 'gw_admin_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
});

t.test('the admin token: unset or empty is off, under 16 characters is refused, compared by value', async (t) => {
  t.equal(readAdminToken('GATEWAY_ADMIN_TOKEN', {}), undefined);
  t.equal(readAdminToken('GATEWAY_ADMIN_TOKEN', { GATEWAY_ADMIN_TOKEN: '' }), undefined);
  t.throws(
    () => readAdminToken('GATEWAY_ADMIN_TOKEN', { GATEWAY_ADMIN_TOKEN: '123456789012345' }),
    /GATEWAY_ADMIN_TOKEN is too short: .*at least 16/,
  );
  t.equal(readAdminToken('MY_TOKEN', { MY_TOKEN: '1234567890123456' }), '1234567890123456');
  const matches = secretMatcher('1234567890123456');
  t.ok(matches('1234567890123456'));
  t.notOk(matches('1234567890123457'));
  t.notOk(matches('12345678901234561'), 'a longer value does not match');
  t.notOk(matches(''));
});
