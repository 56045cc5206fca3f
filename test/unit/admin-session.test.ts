// Dashboard sessions (admin/session.ts) and the admin token rules (admin/token.ts).
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { Sessions, sessionCookie } from '../../admin/session.js';
import { readAdminToken, secretMatcher } from '../../admin/token.js';

const withCookie = (cookie: string): IncomingMessage => ({ headers: { cookie } }) as IncomingMessage;

t.test('a session is found by its cookie until its TTL runs out, then never again', async (t) => {
  let now = 1_000_000;
  const sessions = new Sessions(60_000, () => now);
  const session = sessions.create();
  const req = withCookie(`theme=dark; gw_admin_session=${session.id}`);
  t.equal(sessions.fromRequest(req), session);
  now += 59_999;
  t.equal(sessions.fromRequest(req), session);
  now += 1;
  t.equal(sessions.fromRequest(req), undefined);
  t.equal(sessions.size, 0, 'the expired session is dropped');
});

t.test('session ids and CSRF tokens are 32 random bytes, different for every session', async (t) => {
  const sessions = new Sessions(60_000);
  const [a, b] = [sessions.create(), sessions.create()];
  t.match(a.id, /^[A-Za-z0-9_-]{43}$/);
  t.match(a.csrfToken, /^[A-Za-z0-9_-]{43}$/);
  t.not(a.id, b.id);
  t.not(a.csrfToken, b.csrfToken);
  t.ok(a.csrfMatches(a.csrfToken));
  t.notOk(a.csrfMatches(b.csrfToken));
});

t.test('creating a session sweeps out the expired ones', async (t) => {
  let now = 0;
  const sessions = new Sessions(60_000, () => now);
  sessions.create();
  sessions.create();
  now = 60_000;
  sessions.create();
  t.equal(sessions.size, 1);
});

t.test('the cookie is HttpOnly, SameSite=Strict, Path=/, lasts the session, and is Secure only over TLS', async (t) => {
  const sessions = new Sessions(3_600_000, () => 0);
  const session = sessions.create();
  t.equal(
    sessionCookie(session, false, 0),
    `gw_admin_session=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=3600`,
  );
  t.match(sessionCookie(session, true, 0), /; Secure$/);
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
