// The sign-in routes under /console/sign-in: which ways to sign in there are, and sign-in by e-mail link.
import { AdminError } from '../admin/errors.js';
import type { AdminRoute } from '../admin/routes.js';
import type { EmailSignIn } from './email-sign-in.js';

export interface SignInWays {
  /** Sign-in by e-mail link: on with `mail.url`. */
  email: EmailSignIn | undefined;
  /** The single sign-on button's text, when OpenID Connect is on. */
  oidcLabel: string | undefined;
}

export function signInRoutes(ways: SignInWays): AdminRoute[] {
  const emailSignIn = (): EmailSignIn => {
    if (ways.email === undefined)
      throw new AdminError('not_found', 'sign-in by e-mail is off: the gateway has no mail.url');
    return ways.email;
  };
  return [
    {
      method: 'GET',
      path: /^\/console\/sign-in\/options$/,
      async handle() {
        return {
          status: 200,
          body: {
            email: ways.email !== undefined,
            oidc: ways.oidcLabel === undefined ? null : { label: ways.oidcLabel },
          },
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
  ];
}
