// The usage ledger's life cycle (issue #6): a row is written 'held' when a request is admitted (its
// reservation, `hold_micros`, already taken from the balance), then 'settled' with its tokens and cost,
// or 'released' when an orphaned hold is refunded. Rows written before this migration are settled.
import { sql, type Kysely, type Migration } from 'kysely';

export const usageHolds: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('usage')
      .addColumn('state', 'text', (c) =>
        c
          .notNull()
          .defaultTo('settled')
          .check(sql`state in ('held', 'settled', 'released')`),
      )
      .execute();
    await db.schema
      .alterTable('usage')
      .addColumn('hold_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    // Only open holds are indexed: the orphan sweep finds them without scanning the ledger.
    await db.schema
      .createIndex('usage_held')
      .on('usage')
      .column('created_at')
      .where(sql.ref('state'), '=', 'held')
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('usage_held').execute();
    await db.schema.alterTable('usage').dropColumn('hold_micros').execute();
    await db.schema.alterTable('usage').dropColumn('state').execute();
  },
};
