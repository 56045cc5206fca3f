// Signed-in browsers, for the operator's dashboard and the members' console: the cookie holds 32 random
// bytes, the store only their SHA-256, so every node of a fleet accepts a session and a sign-out (the
// row deleted) is seen by all of them at once. Each session has its CSRF token, which the page echoes.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { secretHash } from './secret-hash.js';
import type { Database, WebSessionKind } from './schema.js';

export interface WebSession {
  kind: WebSessionKind;
  /** The member's e-mail; null for the operator. */
  email: string | null;
  csrfToken: string;
  expiresAt: number;
}

export interface NewWebSession {
  /** The cookie's value: it exists only in the browser and in this answer. */
  id: string;
  session: WebSession;
}

export class WebSessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  async create(
    kind: WebSessionKind,
    email: string | null,
    ttlMs: number,
    address: string | null,
  ): Promise<NewWebSession> {
    const now = this.now();
    // The expired rows go as new ones come: the table holds about the live sessions.
    await this.db.deleteFrom('web_sessions').where('expires_at', '<=', now).execute();
    const id = randomBytes(32).toString('base64url');
    const session: WebSession = {
      kind,
      email,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: now + ttlMs,
    };
    await this.db
      .insertInto('web_sessions')
      .values({
        id_hash: secretHash(id),
        kind,
        email,
        csrf_token: session.csrfToken,
        address,
        created_at: now,
        expires_at: session.expiresAt,
      })
      .execute();
    return { id, session };
  }

  /** The live session of this kind that a cookie's value names, or undefined. */
  async find(id: string, kind: WebSessionKind): Promise<WebSession | undefined> {
    const row = await this.db
      .selectFrom('web_sessions')
      .select(['kind', 'email', 'csrf_token', 'expires_at'])
      .where('id_hash', '=', secretHash(id))
      .where('kind', '=', kind)
      .executeTakeFirst();
    if (row === undefined || Number(row.expires_at) <= this.now()) return undefined;
    return { kind: row.kind, email: row.email, csrfToken: row.csrf_token, expiresAt: Number(row.expires_at) };
  }

  /** Ends a session, on every node. */
  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('id_hash', '=', secretHash(id)).execute();
  }
}
