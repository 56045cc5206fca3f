// Batches (issue #29): the files an organization uploads (and the output files a batch writes), the batches,
// and one row per line of a batch, which a worker claims with a lease (store/batch-lines.ts) so that in a
// fleet each line runs on one node at a time and a line whose node died is taken up again. A line's body
// stays in its input object (offset and length); its result is kept here until retention deletes the batch.
// Every ledger row of a line names its batch (usage.batch_id).
import type { Kysely, Migration } from 'kysely';

export const batches: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('batch_files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('filename', 'text', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .addColumn('lines', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .execute();
    await db.schema.createIndex('batch_files_org').on('batch_files').columns(['org_id', 'created_at']).execute();

    await db.schema
      .createTable('batches')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('api', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('input_file_id', 'text')
      .addColumn('input_object', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text')
      .addColumn('errors', 'text')
      .addColumn('output_file_id', 'text')
      .addColumn('error_file_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('in_progress_at', 'bigint')
      .addColumn('finalizing_at', 'bigint')
      .addColumn('completed_at', 'bigint')
      .addColumn('failed_at', 'bigint')
      .addColumn('expired_at', 'bigint')
      .addColumn('cancelling_at', 'bigint')
      .addColumn('cancelled_at', 'bigint')
      .addColumn('ended_at', 'bigint')
      .execute();
    await db.schema.createIndex('batches_org').on('batches').columns(['org_id', 'created_at']).execute();
    await db.schema.createIndex('batches_status').on('batches').columns(['status', 'created_at']).execute();

    await db.schema
      .createTable('batch_lines')
      .addColumn('batch_id', 'text', (c) => c.notNull())
      .addColumn('line_no', 'integer', (c) => c.notNull())
      .addColumn('custom_id', 'text', (c) => c.notNull())
      .addColumn('body_offset', 'bigint', (c) => c.notNull())
      .addColumn('body_length', 'bigint', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('status_code', 'integer')
      .addColumn('result', 'text')
      .addColumn('finished_at', 'bigint')
      .addPrimaryKeyConstraint('batch_lines_pk', ['batch_id', 'line_no'])
      .execute();
    await db.schema.createIndex('batch_lines_state').on('batch_lines').columns(['batch_id', 'state']).execute();

    await db.schema.alterTable('usage').addColumn('batch_id', 'text').execute();
    await db.schema.createIndex('usage_batch').on('usage').column('batch_id').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('usage_batch').execute();
    await db.schema.alterTable('usage').dropColumn('batch_id').execute();
    await db.schema.dropTable('batch_lines').execute();
    await db.schema.dropTable('batches').execute();
    await db.schema.dropTable('batch_files').execute();
  },
};
