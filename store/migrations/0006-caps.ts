// Caps per key and per member (issue #28): the caps an organization's admins or the operator set, the
// spend of each key per UTC day that the caps of a day, week or month add up (written by the meter's
// settlements; backfilled here from the ledger), the open holds of a key found by an index (what its
// concurrency and its reserved spend are), and the model of each ledger row (the usage export groups
// by it; null for rows older than this migration).
import { sql, type Kysely, type Migration } from 'kysely';

/** Milliseconds in a day: a UTC day's number is `floor(unix ms / DAY_MS)`. */
const DAY_MS = 86_400_000;

export const caps: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('caps')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('scope_id', 'text', (c) => c.notNull())
      .addColumn('day_micros', 'bigint')
      .addColumn('week_micros', 'bigint')
      .addColumn('month_micros', 'bigint')
      .addColumn('requests_per_minute', 'bigint')
      .addColumn('input_tokens_per_minute', 'bigint')
      .addColumn('output_tokens_per_minute', 'bigint')
      .addColumn('concurrent_requests', 'bigint')
      .addColumn('updated_by', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('caps_pk', ['org_id', 'scope', 'scope_id'])
      .execute();

    await db.schema
      .createTable('key_spend_daily')
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('day', 'bigint', (c) => c.notNull())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('spent_micros', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('key_spend_daily_pk', ['key_id', 'day'])
      .execute();
    await sql`insert into key_spend_daily (key_id, day, org_id, spent_micros)
      select key_id, created_at / ${sql.lit(DAY_MS)}, min(org_id), sum(cost_micros) from usage
      where state = 'settled' group by key_id, created_at / ${sql.lit(DAY_MS)}`.execute(db);

    // A key's open holds: its requests in flight, and the spend they reserve.
    await db.schema
      .createIndex('usage_held_key')
      .on('usage')
      .columns(['key_id', 'created_at'])
      .where(sql.ref('state'), '=', 'held')
      .execute();

    await db.schema.alterTable('usage').addColumn('model', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('usage').dropColumn('model').execute();
    await db.schema.dropIndex('usage_held_key').execute();
    await db.schema.dropTable('key_spend_daily').execute();
    await db.schema.dropTable('caps').execute();
  },
};
