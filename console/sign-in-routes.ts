// The sign-in routes under /console/sign-in: which ways to sign in there are, sign-in by e-mail link,
// and single sign-on through an OpenID provider (the redirect there, and its callback).
import type { Logger } from 'pino';
import { AdminError } from '../admin/errors.js';
import type { AdminRoute, RouteAnswer } from '../admin/routes.js';
import type { Sessions } from '../admin/session.js';
import type { Store } from '../store/store.js';
import type { EmailSignIn } from './email-sign-in.js';
import { OidcSignInError, type OidcSignIn } from './oidc-sign-in.js';

export interface SignInWays {
  /** Sign-in by e-mail link: on with `mail.url`. */
  email: EmailSignIn | undefined;
  /** Single sign-on, and its button's text: on with `console.oidc.issuer` and `client_id`. */
  oidc: { signIn: OidcSignIn; label: string } | undefined;
  sessions: Sessions;
  store: () => Promise<Store>;
  log: Logger;
}

export function signInRoutes(ways: SignInWays): AdminRoute[] {
  const emailSignIn = (): EmailSignIn => {
    if (ways.email === undefined)
      throw new AdminError('not_found', 'sign-in by e-mail is off: the gateway has no mail.url');
    return ways.email;
  };
  const oidc = (): OidcSignIn => {
    if (ways.oidc === undefined) throw new AdminError('not_found', 'single sign-on is off');
    return ways.oidc.signIn;
  };
  /** Back to the sign-in page, which says what went wrong. */
  const refused = (code: string, cookies: string[]): RouteAnswer => ({
    status: 302,
    headers: { location: `/#/sign-in?error=${code}`, 'set-cookie': cookies },
  });
  const oidcFailure = (error: unknown): RouteAnswer => {
    if (!(error instanceof OidcSignInError)) throw error;
    ways.log.warn(
      { console: true, code: error.code, err: error.cause instanceof Error ? error.cause.message : undefined },
      'console: single sign-on refused',
    );
    return refused(error.code, [error.clearCookie]);
  };
  return [
    {
      method: 'GET',
      path: /^\/console\/sign-in\/options$/,
      async handle() {
        return {
          status: 200,
          body: { email: ways.email !== undefined, oidc: ways.oidc === undefined ? null : { label: ways.oidc.label } },
        };
      },
    },
    {
      method: 'POST',
      path: /^\/console\/sign-in\/email$/,
      async handle({ req }) {
        await emailSignIn().request(req);
        return { status: 202, body: { sent: true } };
      },
    },
    {
      method: 'POST',
      path: /^\/console\/sign-in\/link$/,
      async handle({ req }) {
        const signedIn = await emailSignIn().redeem(req);
        return {
          status: 200,
          body: {
            email: signedIn.email,
            csrf_token: signedIn.csrfToken,
            expires_at: new Date(signedIn.expiresAt).toISOString(),
          },
          headers: { 'set-cookie': signedIn.setCookie },
        };
      },
    },
    {
      method: 'GET',
      path: /^\/console\/sign-in\/oidc$/,
      async handle({ req }) {
        try {
          const { location, setCookie } = await oidc().start(req);
          return { status: 302, headers: { location, 'set-cookie': setCookie } };
        } catch (error) {
          return oidcFailure(error);
        }
      },
    },
    {
      method: 'GET',
      path: /^\/console\/sign-in\/oidc\/callback$/,
      async handle({ req, query }) {
        let finished: { email: string; clearCookie: string };
        try {
          // The module rebuilds the callback from the registered redirect URI: only the query matters here.
          finished = await oidc().finish(new URL(`http://callback.invalid/?${query}`), req);
        } catch (error) {
          return oidcFailure(error);
        }
        const { email, clearCookie } = finished;
        if ((await (await ways.store()).orgs.memberships(email)).length === 0) {
          ways.log.warn({ console: true }, 'console: single sign-on by an address that is no member');
          return refused('not_a_member', [clearCookie]);
        }
        const { setCookie } = await ways.sessions.create(email, req);
        return { status: 302, headers: { location: '/', 'set-cookie': [clearCookie, setCookie] } };
      },
    },
  ];
}
