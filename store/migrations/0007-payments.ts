// Self-serve top-ups (issue #28): one row per Stripe Checkout Session a member opened, and on each credit
// grant the Stripe event and the Checkout Session it came from. Both are unique (NULLs apart), so a
// payment's grant is written once whatever Stripe delivers and however often: the grant's insert does
// nothing on a conflict with either. SQLite adds no UNIQUE column, so the two are unique indexes.
import type { Kysely, Migration } from 'kysely';

export const payments: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('payments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('checkout_session_id', 'text', (c) => c.unique())
      .addColumn('amount_micros', 'bigint', (c) => c.notNull())
      .addColumn('amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .addColumn('stripe_event_id', 'text')
      .addColumn('payment_intent', 'text')
      .execute();
    await db.schema.createIndex('payments_org').on('payments').columns(['org_id', 'created_at']).execute();

    await db.schema.alterTable('credit_grants').addColumn('stripe_event_id', 'text').execute();
    await db.schema.alterTable('credit_grants').addColumn('checkout_session_id', 'text').execute();
    await db.schema
      .createIndex('credit_grants_stripe_event')
      .on('credit_grants')
      .column('stripe_event_id')
      .unique()
      .execute();
    await db.schema
      .createIndex('credit_grants_checkout_session')
      .on('credit_grants')
      .column('checkout_session_id')
      .unique()
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('credit_grants_checkout_session').execute();
    await db.schema.dropIndex('credit_grants_stripe_event').execute();
    await db.schema.alterTable('credit_grants').dropColumn('checkout_session_id').execute();
    await db.schema.alterTable('credit_grants').dropColumn('stripe_event_id').execute();
    await db.schema.dropTable('payments').execute();
  },
};
