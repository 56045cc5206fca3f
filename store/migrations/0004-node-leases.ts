// Gateway nodes and their leases (issue #15): each running node has a row it heartbeats, and each
// hold records the node that metered it, so the orphan sweep can release at once the holds of a node
// whose lease ran out (it died) without waiting for their age. Rows written before this have no node.
import type { Kysely, Migration } from 'kysely';

export const nodeLeases: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('nodes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('usage').addColumn('node_id', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('usage').dropColumn('node_id').execute();
    await db.schema.dropTable('nodes').execute();
  },
};
