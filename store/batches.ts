// Batches (issue #29) as records: who made one, what it runs, where it is in its life, and the counts of its
// lines by state. A status moves only by compare-and-set (`move`), so that in a fleet one node makes each
// move (finalizes a batch, ends it) and the others find it made. Its lines are store/batch-lines.ts.
import type { Kysely, Selectable, Transaction } from 'kysely';
import {
  batchDb,
  type BatchApi,
  type BatchDatabase,
  type BatchesTable,
  type BatchStatus,
  type LineState,
} from './batch-schema.js';
import type { PageQuery } from './batch-files.js';
import type { Database } from './schema.js';

export interface BatchRecord {
  id: string;
  orgId: string;
  keyId: string;
  api: BatchApi;
  endpoint: string;
  inputFileId: string | null;
  inputObject: string;
  status: BatchStatus;
  metadata: Record<string, string> | null;
  errors: unknown;
  outputFileId: string | null;
  errorFileId: string | null;
  /** Unix ms, like every time here. */
  createdAt: number;
  expiresAt: number;
  inProgressAt: number | null;
  finalizingAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  expiredAt: number | null;
  cancellingAt: number | null;
  cancelledAt: number | null;
  endedAt: number | null;
}

/** One line of a new batch: its custom id and where its body is in the input object. */
export interface NewLine {
  customId: string;
  offset: number;
  length: number;
}

/** A batch's lines by state. */
export type LineCounts = Record<LineState, number> & { total: number };

/** The statuses a batch ends in. */
export const ENDED: readonly BatchStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

/** The statuses in which a batch's lines still run or are being written out: what the workers look at. */
export const ACTIVE: readonly BatchStatus[] = ['in_progress', 'cancelling', 'finalizing'];

/** Lines inserted per statement when a batch is made (SQLite's limit of bound parameters stays far away). */
const LINES_PER_INSERT = 500;

export class Batches {
  readonly #db: Kysely<BatchDatabase>;

  constructor(db: Kysely<Database>) {
    this.#db = batchDb(db);
  }

  /**
   * Records the batch (in progress) and its lines (queued), in one transaction; `alsoInTransaction` writes more
   * in it (the lines' jobs of a job queue on the same database), so the batch and its jobs exist together or not.
   */
  async create(
    batch: BatchRecord,
    lines: readonly NewLine[],
    alsoInTransaction?: (tx: Kysely<BatchDatabase>) => Promise<void>,
  ): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await alsoInTransaction?.(tx);
      await tx.insertInto('batches').values(rowOf(batch)).execute();
      for (let start = 0; start < lines.length; start += LINES_PER_INSERT)
        await tx
          .insertInto('batch_lines')
          .values(
            lines.slice(start, start + LINES_PER_INSERT).map((line, i) => ({
              batch_id: batch.id,
              line_no: start + i,
              custom_id: line.customId,
              body_offset: line.offset,
              body_length: line.length,
              state: 'queued' as const,
              lease_owner: null,
              lease_until: null,
              status_code: null,
              result: null,
              finished_at: null,
            })),
          )
          .execute();
    });
  }

  /** The organization's batch made through `api`, or undefined (another organization's is not there for it). */
  async get(orgId: string, api: BatchApi, id: string): Promise<BatchRecord | undefined> {
    const row = await this.#db
      .selectFrom('batches')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('api', '=', api)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && recordOf(row);
  }

  /** A batch by id, whoever owns it: for the workers. */
  async byId(id: string): Promise<BatchRecord | undefined> {
    const row = await this.#db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
    return row && recordOf(row);
  }

  /**
   * A page of the organization's batches of one API (of both: undefined, the console's list), newest first; one
   * more than `limit` says whether more follow. Undefined when `after` names none of them (a cursor from
   * elsewhere, or a batch deleted since).
   */
  async list(orgId: string, api: BatchApi | undefined, page: PageQuery): Promise<BatchRecord[] | undefined> {
    let query = this.#db.selectFrom('batches').selectAll().where('org_id', '=', orgId);
    if (api !== undefined) query = query.where('api', '=', api);
    if (page.after !== undefined) {
      const after = await this.byId(page.after);
      if (after === undefined || after.orgId !== orgId || (api !== undefined && after.api !== api)) return undefined;
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    }
    const rows = await query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit + 1)
      .execute();
    return rows.map(recordOf);
  }

  /** How many batches of the organization have not ended: what its quota counts. */
  async unfinished(orgId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('batches')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('org_id', '=', orgId)
      .where('status', 'not in', ENDED)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Whether a batch of the organization that has not ended reads the file (then it may not be deleted). */
  async readsFile(orgId: string, fileId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('batches')
      .select('id')
      .where('org_id', '=', orgId)
      .where('input_file_id', '=', fileId)
      .where('status', 'not in', ENDED)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The batches whose lines the workers run or finish, oldest first. */
  async active(): Promise<BatchRecord[]> {
    const rows = await this.#db
      .selectFrom('batches')
      .selectAll()
      .where('status', 'in', ACTIVE)
      .orderBy('created_at')
      .execute();
    return rows.map(recordOf);
  }

  /** Counts of the batch's lines by state. */
  async counts(batchId: string): Promise<LineCounts> {
    const rows = await this.#db
      .selectFrom('batch_lines')
      .select((eb) => ['state', eb.fn.countAll<number | string>().as('count')])
      .where('batch_id', '=', batchId)
      .groupBy('state')
      .execute();
    const counts: LineCounts = { total: 0, queued: 0, running: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    for (const row of rows) {
      counts[row.state] = Number(row.count);
      counts.total += Number(row.count);
    }
    return counts;
  }

  /** The batch's cost so far: its lines' settled ledger rows, integer micro-credits. */
  async cost(batchId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('usage')
      .select((eb) => eb.fn.sum<number | string | null>('cost_micros').as('cost'))
      .where('batch_id', '=', batchId)
      .where('state', '=', 'settled')
      .executeTakeFirstOrThrow();
    return Number(row.cost ?? 0);
  }

  /**
   * Moves the batch from one of `from` to `to`, setting the fields given (the move's time): whether this
   * call moved it (another node, or an earlier call, may have).
   */
  async move(
    id: string,
    from: readonly BatchStatus[],
    to: BatchStatus,
    fields: Partial<Pick<BatchesTable, TimeField | 'output_file_id' | 'error_file_id' | 'errors'>>,
  ): Promise<boolean> {
    const result = await this.#db
      .updateTable('batches')
      .set({ status: to, ...fields })
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Asks for the batch to stop: an in-progress batch is `cancelling` and its queued lines `canceled` in one
   * transaction (a worker claims no more of them); the lines running stop at their node's next lease renewal.
   * Whether this call made the move.
   */
  async cancel(id: string, now: number): Promise<boolean> {
    return this.#db.transaction().execute(async (tx) => {
      const moved = await tx
        .updateTable('batches')
        .set({ status: 'cancelling', cancelling_at: now })
        .where('id', '=', id)
        .where('status', 'in', ['validating', 'in_progress'])
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return false;
      await endQueued(tx, id, 'canceled', now);
      return true;
    });
  }

  /** Ends the lines not run before the window closed (`expired`, billed nothing); how many. */
  async expireQueued(id: string, now: number): Promise<number> {
    return endQueued(this.#db, id, 'expired', now);
  }

  /** Deletes the batch and its lines (its files are the caller's to delete). */
  async delete(id: string): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await tx.deleteFrom('batch_lines').where('batch_id', '=', id).execute();
      await tx.deleteFrom('batches').where('id', '=', id).execute();
    });
  }

  /** Batches that ended before `before`, oldest first: what retention deletes. */
  async endedBefore(before: number, limit: number): Promise<BatchRecord[]> {
    const rows = await this.#db
      .selectFrom('batches')
      .selectAll()
      .where('ended_at', 'is not', null)
      .where('ended_at', '<', before)
      .orderBy('ended_at')
      .limit(limit)
      .execute();
    return rows.map(recordOf);
  }
}

type TimeField =
  | 'in_progress_at'
  | 'finalizing_at'
  | 'completed_at'
  | 'failed_at'
  | 'expired_at'
  | 'cancelling_at'
  | 'cancelled_at'
  | 'ended_at';

/** Gives the batch's queued lines an end (canceled, expired) with the result line that says so. */
async function endQueued(
  db: Kysely<BatchDatabase> | Transaction<BatchDatabase>,
  id: string,
  state: 'canceled' | 'expired',
  now: number,
): Promise<number> {
  const result = await db
    .updateTable('batch_lines')
    .set({ state, finished_at: now, lease_owner: null, lease_until: null })
    .where('batch_id', '=', id)
    .where('state', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

function rowOf(batch: BatchRecord): BatchesTable {
  return {
    id: batch.id,
    org_id: batch.orgId,
    key_id: batch.keyId,
    api: batch.api,
    endpoint: batch.endpoint,
    input_file_id: batch.inputFileId,
    input_object: batch.inputObject,
    status: batch.status,
    metadata: batch.metadata === null ? null : JSON.stringify(batch.metadata),
    errors: batch.errors === null || batch.errors === undefined ? null : JSON.stringify(batch.errors),
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: batch.createdAt,
    expires_at: batch.expiresAt,
    in_progress_at: batch.inProgressAt,
    finalizing_at: batch.finalizingAt,
    completed_at: batch.completedAt,
    failed_at: batch.failedAt,
    expired_at: batch.expiredAt,
    cancelling_at: batch.cancellingAt,
    cancelled_at: batch.cancelledAt,
    ended_at: batch.endedAt,
  };
}

function recordOf(row: Selectable<BatchesTable>): BatchRecord {
  const time = (value: number | null): number | null => (value === null ? null : Number(value));
  return {
    id: row.id,
    orgId: row.org_id,
    keyId: row.key_id,
    api: row.api,
    endpoint: row.endpoint,
    inputFileId: row.input_file_id,
    inputObject: row.input_object,
    status: row.status,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    errors: row.errors === null ? null : (JSON.parse(row.errors) as unknown),
    outputFileId: row.output_file_id,
    errorFileId: row.error_file_id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    inProgressAt: time(row.in_progress_at),
    finalizingAt: time(row.finalizing_at),
    completedAt: time(row.completed_at),
    failedAt: time(row.failed_at),
    expiredAt: time(row.expired_at),
    cancellingAt: time(row.cancelling_at),
    cancelledAt: time(row.cancelled_at),
    endedAt: time(row.ended_at),
  };
}
