// The customers' console (issue #17): web sessions kept in the store (so every node of a fleet accepts
// them, and a sign-out is seen by all), one-time sign-in links, OpenID Connect logins under way, the
// sign-in requests the throttle counts, the audit log, and who created each API key.
import type { Kysely, Migration } from 'kysely';

export const consoleTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('web_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('email', 'text')
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('address', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('web_sessions_expires_at').on('web_sessions').column('expires_at').execute();

    await db.schema
      .createTable('sign_in_links')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('sign_in_links_expires_at').on('sign_in_links').column('expires_at').execute();

    await db.schema
      .createTable('sign_in_requests')
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('sign_in_requests_email')
      .on('sign_in_requests')
      .columns(['email', 'created_at'])
      .execute();
    await db.schema
      .createIndex('sign_in_requests_address')
      .on('sign_in_requests')
      .columns(['address', 'created_at'])
      .execute();

    await db.schema
      .createTable('oidc_logins')
      .addColumn('state_hash', 'text', (c) => c.primaryKey())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('address', 'text')
      .addColumn('subject', 'text')
      .addColumn('detail', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_org').on('audit_log').columns(['org_id', 'created_at']).execute();

    await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('api_keys').dropColumn('created_by').execute();
    for (const table of ['audit_log', 'oidc_logins', 'sign_in_requests', 'sign_in_links', 'web_sessions'])
      await db.schema.dropTable(table).execute();
  },
};
