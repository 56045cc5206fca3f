// The dashboard's session routes: POST /admin/login (the admin token → a session cookie and its CSRF
// token), GET /admin/session (the CSRF token of the current session), POST /admin/logout.
import type { WebSession } from '../store/web-sessions.js';
import { AdminError } from './errors.js';
import { checkCsrf, checkOrigin } from './guard.js';
import { readObject } from './http.js';
import type { AdminRoute, RouteAnswer } from './routes.js';
import type { Sessions } from './session.js';
import type { TokenCheck } from './token-throttle.js';

export function sessionRoutes(tokenMatches: TokenCheck, sessions: Sessions): AdminRoute[] {
  const describe = (session: WebSession): RouteAnswer => ({
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
        const { session, setCookie } = await sessions.create(null, req);
        return { ...describe(session), headers: { 'set-cookie': setCookie } };
      },
    },
    {
      method: 'GET',
      path: /^\/admin\/session$/,
      async handle({ req }) {
        const signedIn = await sessions.fromRequest(req);
        if (signedIn === undefined) throw new AdminError('unauthorized', 'not logged in');
        return describe(signedIn.session);
      },
    },
    {
      method: 'POST',
      path: /^\/admin\/logout$/,
      async handle({ req }) {
        const signedIn = await sessions.fromRequest(req);
        if (signedIn !== undefined) {
          checkCsrf(req, signedIn.session);
          await sessions.end(signedIn);
        }
        return { status: 204, headers: { 'set-cookie': sessions.clearedCookie(req) } };
      },
    },
  ];
}
