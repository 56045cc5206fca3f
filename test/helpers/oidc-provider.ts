// A real OpenID provider (the oidc-provider package) on a loopback port, over http: one confidential client,
// PKCE required, the scopes openid and email, accounts from a table the test gives. Its development
// interactions are on: a login form where any account id signs in (with any password), then a consent
// page, which a headless browser fills in like a person would.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type AccountClaims } from 'oidc-provider';

/** What the provider knows of an account: its e-mail claims (absent ones are not released). */
export interface OidcAccount {
  email?: string;
  email_verified?: boolean;
}

export interface OidcProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** By account id: the id typed into the login form. */
  accounts: Record<string, OidcAccount>;
  /** The port to listen on (one chosen in advance, so a client can be pointed at it first); a free one by default. */
  port?: number;
  /** Where the e-mail claims go: the ID token and userinfo (the default), or userinfo only, as the spec's default. */
  emailIn?: 'id_token' | 'userinfo';
}

export interface RunningOidcProvider {
  /** `http://127.0.0.1:PORT`. */
  issuer: string;
  /** Errors the provider met answering (a test that expects none asserts this stays empty). */
  serverErrors: Error[];
  close(): Promise<void>;
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<RunningOidcProvider> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // By default only public clients must use PKCE; the console is confidential and must use it all the same.
    pkce: { required: () => true },
    scopes: ['openid', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: options.emailIn === 'userinfo',
    async findAccount(_context, sub) {
      const account = options.accounts[sub];
      if (account === undefined) return undefined;
      return { accountId: sub, claims: async (): Promise<AccountClaims> => ({ sub, ...account }) };
    },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  const serverErrors: Error[] = [];
  provider.on('server_error', (_context, error) => serverErrors.push(error));
  server.on('request', provider.callback());
  return {
    issuer,
    serverErrors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
