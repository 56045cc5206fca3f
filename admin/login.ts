// The dashboard's session routes: POST /admin/login (the admin token → a session cookie and its CSRF
// token), GET /admin/session (the CSRF token of the current session), POST /admin/logout.
import { AdminError } from './errors.js';
import { checkCsrf, checkOrigin } from './guard.js';
import { isHttps, readObject } from './http.js';
import type { AdminRoute, RouteAnswer } from './routes.js';
import { clearedSessionCookie, sessionCookie, type Session, type Sessions } from './session.js';
import type { TokenCheck } from './token-throttle.js';

export function sessionRoutes(tokenMatches: TokenCheck, sessions: Sessions): AdminRoute[] {
  const describe = (session: Session): RouteAnswer => ({
    status: 200,
    body: { csrf_token: session.csrfToken, expires_at: new Date(session.expiresAt).toISOString() },
  });
  return [
    {
      method: 'POST',
      path: /^\/admin\/login$/,
      async handle({ req }) {
        checkOrigin(req);
        const { token } = await readObject(req);
        if (typeof token !== 'string' || token === '')
          throw new AdminError('invalid_request', "'token' must be the admin token, a string", 'token');
        if (!tokenMatches(token, req)) throw new AdminError('unauthorized', 'the admin token is wrong');
        const session = sessions.create();
        return { ...describe(session), headers: { 'set-cookie': sessionCookie(session, isHttps(req)) } };
      },
    },
    {
      method: 'GET',
      path: /^\/admin\/session$/,
      async handle({ req }) {
        const session = sessions.fromRequest(req);
        if (session === undefined) throw new AdminError('unauthorized', 'not logged in');
        return describe(session);
      },
    },
    {
      method: 'POST',
      path: /^\/admin\/logout$/,
      async handle({ req }) {
        const session = sessions.fromRequest(req);
        if (session !== undefined) {
          checkCsrf(req, session);
          sessions.delete(session);
        }
        return { status: 204, headers: { 'set-cookie': clearedSessionCookie(isHttps(req)) } };
      },
    },
  ];
}
