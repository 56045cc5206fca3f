// One-time sign-in links: a random 32-byte token goes into the e-mail, the store keeps its SHA-256, the
// address and an expiry. Redeeming marks the link used in the same statement that finds it, so two
// clicks (on two nodes) cannot both sign in.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { secretHash } from './secret-hash.js';
import type { Database } from './schema.js';

export class SignInLinks {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new link's token for this address, valid `ttlMs`. */
  async issue(email: string, ttlMs: number): Promise<string> {
    const now = this.now();
    await this.db.deleteFrom('sign_in_links').where('expires_at', '<=', now).execute();
    const token = randomBytes(32).toString('base64url');
    await this.db
      .insertInto('sign_in_links')
      .values({ token_hash: secretHash(token), email, created_at: now, expires_at: now + ttlMs, used_at: null })
      .execute();
    return token;
  }

  /** The address a live, unused link was sent to, marking it used; undefined for a used, expired or unknown one. */
  async redeem(token: string): Promise<string | undefined> {
    const now = this.now();
    const row = await this.db
      .updateTable('sign_in_links')
      .set({ used_at: now })
      .where('token_hash', '=', secretHash(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('email')
      .executeTakeFirst();
    return row?.email;
  }
}
