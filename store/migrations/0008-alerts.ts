// Threshold alerts (issue #28): the rules an organization sets (a balance below N micro-credits, a
// percentage of a key's or a member's spend cap in a period), the events they fire (the outbox: one row
// per threshold crossing, unique per rule and crossing, so that in a fleet whichever node inserts first
// fires and the others find the row taken), the webhook endpoints events go to (their signing secret
// sealed with the server's webhook key) and the delivery log (one row per attempt).
import type { Kysely, Migration } from 'kysely';

export const alerts: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('alert_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('scope_id', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('threshold', 'bigint', (c) => c.notNull())
      .addColumn('period', 'text')
      .addColumn('armed', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('crossings', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('alert_rules_org').on('alert_rules').column('org_id').execute();

    await db.schema
      .createTable('alert_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('rule_id', 'text')
      .addColumn('crossing', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('alert_events_crossing', ['rule_id', 'crossing'])
      .execute();

    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('sealed_secret', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('disabled_at', 'bigint')
      .execute();
    await db.schema.createIndex('webhook_endpoints_org').on('webhook_endpoints').column('org_id').execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('error', 'text')
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addUniqueConstraint('webhook_deliveries_attempt', ['event_id', 'endpoint_id', 'attempt'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_endpoint')
      .on('webhook_deliveries')
      .columns(['endpoint_id', 'created_at'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['webhook_deliveries', 'webhook_endpoints', 'alert_events', 'alert_rules'])
      await db.schema.dropTable(table).execute();
  },
};
