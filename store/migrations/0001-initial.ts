// Orgs, members, API keys and the usage ledger. Portable DDL only (SQLite and PostgreSQL alike).
import { sql, type Kysely, type Migration } from 'kysely';

export const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('orgs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('balance_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('spent_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('members')
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'member')`))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('members_pk', ['org_id', 'email'])
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('last4', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_org').on('api_keys').column('org_id').execute();

    await db.schema
      .createTable('usage')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
      .addColumn('dialect', 'text', (c) => c.notNull())
      .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cache_read_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cache_write_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('searches', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cost_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('usage_org_time').on('usage').columns(['org_id', 'created_at']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('usage').execute();
    await db.schema.dropTable('api_keys').execute();
    await db.schema.dropTable('members').execute();
    await db.schema.dropTable('orgs').execute();
  },
};
