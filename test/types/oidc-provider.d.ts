// The part of oidc-provider's API that test/helpers/oidc-provider.ts uses (the package ships no types;
// @types/oidc-provider would bring Koa's types along for these few lines).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The claims an account releases, by name; `sub` always. */
  export interface AccountClaims {
    sub: string;
    [claim: string]: string | boolean | undefined;
  }

  export interface Account {
    accountId: string;
    claims(use: 'id_token' | 'userinfo', scope: string): Promise<AccountClaims>;
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris: string[];
    grant_types?: string[];
    response_types?: string[];
    token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  }

  export interface Configuration {
    clients?: ClientMetadata[];
    /** The context is Koa's; the helper does not look at it. */
    findAccount?: (context: unknown, sub: string) => Promise<Account | undefined>;
    scopes?: string[];
    claims?: Record<string, string[] | null>;
    /** false: the ID token carries the scopes' claims too, not only userinfo. */
    conformIdTokenClaims?: boolean;
    pkce?: { required?: () => boolean };
    cookies?: { keys?: string[] };
    features?: { devInteractions?: { enabled: boolean } };
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    /** A request listener for node:http. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: 'server_error', listener: (context: unknown, error: Error) => void): this;
  }

  export default Provider;
}
