// OpenID Connect sign-ins under way: between the redirect to the provider and its callback (which may
// reach another node), the PKCE verifier and the nonce wait here under the SHA-256 of the `state`.
// Taking one deletes it: a callback is used once.
import type { Kysely } from 'kysely';
import { secretHash } from './secret-hash.js';
import type { Database } from './schema.js';

export interface OidcLogin {
  codeVerifier: string;
  nonce: string;
}

export class OidcLogins {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  async begin(state: string, login: OidcLogin, ttlMs: number): Promise<void> {
    const now = this.now();
    await this.db.deleteFrom('oidc_logins').where('expires_at', '<=', now).execute();
    await this.db
      .insertInto('oidc_logins')
      .values({
        state_hash: secretHash(state),
        code_verifier: login.codeVerifier,
        nonce: login.nonce,
        created_at: now,
        expires_at: now + ttlMs,
      })
      .execute();
  }

  /** The sign-in this `state` began, removed; undefined if unknown, taken or expired. */
  async take(state: string): Promise<OidcLogin | undefined> {
    const row = await this.db
      .deleteFrom('oidc_logins')
      .where('state_hash', '=', secretHash(state))
      .returning(['code_verifier', 'nonce', 'expires_at'])
      .executeTakeFirst();
    if (row === undefined || Number(row.expires_at) <= this.now()) return undefined;
    return { codeVerifier: row.code_verifier, nonce: row.nonce };
  }
}
