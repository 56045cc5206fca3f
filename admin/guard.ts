// Who may call the admin API: the admin token as `Authorization: Bearer`, or a dashboard session cookie.
// A cookie is sent by the browser on its own, so a state-changing request that relies on one must also
// prove it comes from the page: the session's CSRF token in `x-csrf-token`, and no foreign Origin.
import type { IncomingMessage } from 'node:http';
import type { WebSession } from '../store/web-sessions.js';
import { AdminError } from './errors.js';
import { ownOrigin } from './http.js';
import { csrfMatches, type Sessions, type SignedIn } from './session.js';
import type { TokenCheck } from './token-throttle.js';

export type AdminCaller = { via: 'token' } | { via: 'session'; signedIn: SignedIn };

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export function createGuard(tokenMatches: TokenCheck, sessions: Sessions) {
  return async function authenticate(req: IncomingMessage): Promise<AdminCaller> {
    const authorization = req.headers.authorization;
    if (authorization !== undefined) {
      // Another scheme is a wrong token too (and counts as one).
      const presented = /^bearer\s+(.+)$/i.exec(authorization.trim())?.[1] ?? '';
      if (!tokenMatches(presented, req)) throw new AdminError('unauthorized', 'the admin token is wrong');
      return { via: 'token' };
    }
    const signedIn = await sessions.fromRequest(req);
    if (signedIn === undefined)
      throw new AdminError('unauthorized', 'send the admin token as Authorization: Bearer, or log in to the dashboard');
    checkCsrfOnChange(req, signedIn.session);
    return { via: 'session', signedIn };
  };
}

/** A cookie-authenticated change (any method but GET and HEAD) must carry the session's CSRF token. */
export function checkCsrfOnChange(req: IncomingMessage, session: WebSession): void {
  if (!SAFE_METHODS.has(req.method ?? 'GET')) checkCsrf(req, session);
}

/** A cookie-authenticated change: the session's CSRF token, and the listener's own origin if the browser names one. */
export function checkCsrf(req: IncomingMessage, session: WebSession): void {
  checkOrigin(req);
  const presented = req.headers['x-csrf-token'];
  if (typeof presented !== 'string' || !csrfMatches(session, presented))
    throw new AdminError('forbidden', 'missing or wrong x-csrf-token header');
}

/** An `Origin` header, when present, must be this listener's own. */
export function checkOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== ownOrigin(req))
    throw new AdminError('forbidden', `requests from origin ${origin} are not accepted`);
}
