// Signing in to the console through an OpenID provider: the authorization code flow with PKCE (S256),
// `state` and `nonce`, done by openid-client. Between the redirect to the provider and its callback
// (which may reach another node of a fleet) the verifier and the nonce wait in the store under the
// state's hash; the state itself rides in a short cookie, so a callback only works in the browser that
// began the sign-in, and only once. What comes out is the provider's verified e-mail address; matching
// it to an organization's members is the console's business.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  allowInsecureRequests,
  AuthorizationResponseError,
  authorizationCodeGrant,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  ClientSecretBasic,
  discovery,
  fetchUserInfo,
  None,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  type Configuration,
} from 'openid-client';
import { isHttps } from '../admin/http.js';
import { cookieValue } from '../admin/session.js';
import type { OidcLogins } from '../store/oidc-logins.js';

/** The cookie that binds a sign-in's `state` to the browser that began it. */
export const OIDC_STATE_COOKIE = 'gw_console_oidc';
/** The cookie goes only to the sign-in routes: the start and, below it, the provider's callback. */
const COOKIE_PATH = '/console/sign-in/oidc';
const DEFAULT_LOGIN_TTL_MS = 10 * 60 * 1000;
/** Seconds each request to the provider (discovery, token, userinfo) may take. */
const PROVIDER_TIMEOUT_S = 10;

export interface OidcSignInOptions {
  /** The provider's issuer identifier; its discovery document is at `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Sent with HTTP Basic at the token endpoint; undefined for a public client (PKCE alone). */
  clientSecret: string | undefined;
  /** `${public_url}/console/sign-in/oidc/callback`, as registered at the provider. */
  redirectUri: string;
  /** The store's sign-ins under way (store.oidcLogins), shared by every node of a fleet. */
  logins: () => Promise<OidcLogins>;
  /** How long a sign-in may wait for the provider's callback; 10 minutes by default. */
  loginTtlMs?: number;
}

/** Why a sign-in failed, as a short code safe to show the browser; the provider's own words stay in `cause`. */
export type OidcSignInErrorCode = 'oidc_state' | 'oidc_denied' | 'oidc_email' | 'oidc_failed';

export class OidcSignInError extends Error {
  constructor(
    readonly code: OidcSignInErrorCode,
    /** The Set-Cookie value that clears the state cookie: a failed sign-in is over too. */
    readonly clearCookie: string,
    options?: { cause?: unknown },
  ) {
    super(code, options);
    this.name = 'OidcSignInError';
  }
}

/**
 * The `Secure` attribute of the state cookie follows the request, as the session cookie's does: set when the
 * browser reached the console over TLS, directly or through a proxy that says so (admin/http.ts isHttps).
 */
export class OidcSignIn {
  private readonly loginTtlMs: number;
  private discovered: Promise<Configuration> | undefined;

  constructor(private readonly options: OidcSignInOptions) {
    this.loginTtlMs = options.loginTtlMs ?? DEFAULT_LOGIN_TTL_MS;
  }

  /** A new sign-in: the provider's authorization URL and the Set-Cookie value binding the state to this browser. */
  async start(req: IncomingMessage): Promise<{ location: string; setCookie: string }> {
    const secure = isHttps(req);
    const state = randomState();
    const nonce = randomNonce();
    const codeVerifier = randomPKCECodeVerifier();
    let config;
    try {
      config = await this.configuration();
      await (await this.options.logins()).begin(state, { codeVerifier, nonce }, this.loginTtlMs);
    } catch (error) {
      throw new OidcSignInError('oidc_failed', clearedStateCookie(secure), { cause: error });
    }
    const location = buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri,
      scope: 'openid email',
      code_challenge: await calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const maxAge = Math.floor(this.loginTtlMs / 1000);
    return {
      location: location.href,
      setCookie: `${OIDC_STATE_COOKIE}=${state}; HttpOnly; SameSite=Lax; Path=${COOKIE_PATH}; Max-Age=${maxAge}${secure ? '; Secure' : ''}`,
    };
  }

  /**
   * After the provider's redirect: the verified e-mail (lower-cased) and the Set-Cookie value that clears the
   * state cookie; or an OidcSignInError: `oidc_state` (no state, not this browser's, used or expired),
   * `oidc_denied` (the provider answered with an error), `oidc_email` (no e-mail, or `email_verified` false),
   * `oidc_failed` (anything else).
   */
  async finish(callbackUrl: URL, req: IncomingMessage): Promise<{ email: string; clearCookie: string }> {
    const secure = isHttps(req);
    const clearCookie = clearedStateCookie(secure);
    const fail = (code: OidcSignInErrorCode, cause?: unknown) => new OidcSignInError(code, clearCookie, { cause });

    const state = callbackUrl.searchParams.get('state');
    const cookieState = cookieValue(req.headers.cookie, OIDC_STATE_COOKIE);
    if (state === null || cookieState === undefined || !sameText(state, cookieState)) throw fail('oidc_state');
    // openid-client sends the URL it is given, without its query, as the token request's redirect_uri: that must
    // be the registered one, whatever Host or scheme the callback reached this node with.
    const response = new URL(this.options.redirectUri);
    response.search = callbackUrl.search;
    try {
      const login = await (await this.options.logins()).take(state);
      if (login === undefined) throw fail('oidc_state');
      const config = await this.configuration();
      const tokens = await authorizationCodeGrant(config, response, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new Error('no ID token');
      const source = claims.email === undefined ? await fetchUserInfo(config, tokens.access_token, claims.sub) : claims;
      if (typeof source.email !== 'string' || source.email === '' || source.email_verified === false)
        throw fail('oidc_email');
      return { email: source.email.trim().toLowerCase(), clearCookie };
    } catch (error) {
      if (error instanceof OidcSignInError) throw error;
      throw fail(error instanceof AuthorizationResponseError ? 'oidc_denied' : 'oidc_failed', error);
    }
  }

  /** The provider's metadata, discovered on first use and kept; a failed discovery is tried again next time. */
  private configuration(): Promise<Configuration> {
    if (this.discovered === undefined) {
      const { issuer, clientId, clientSecret } = this.options;
      const discovering = discovery(
        new URL(issuer),
        clientId,
        undefined,
        clientSecret === undefined ? None() : ClientSecretBasic(clientSecret),
        // An http issuer is only for a provider on loopback, as in the tests.
        { timeout: PROVIDER_TIMEOUT_S, ...(issuer.startsWith('http://') ? { execute: [allowInsecureRequests] } : {}) },
      );
      this.discovered = discovering;
      discovering.catch(() => {
        if (this.discovered === discovering) this.discovered = undefined;
      });
    }
    return this.discovered;
  }
}

function clearedStateCookie(secure: boolean): string {
  return `${OIDC_STATE_COOKIE}=; HttpOnly; SameSite=Lax; Path=${COOKIE_PATH}; Max-Age=0${secure ? '; Secure' : ''}`;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
