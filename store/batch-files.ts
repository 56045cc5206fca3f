// The files of the batch APIs (issue #29) as records: what was uploaded (purpose `batch`) and what a batch
// wrote (`batch_output`), each owned by one organization. Their bytes are in the file storage (batch/storage/);
// this is what the Files API lists and the quotas and retention count.
import type { Kysely, Selectable } from 'kysely';
import { batchDb, type BatchDatabase, type BatchFilesTable, type FilePurpose } from './batch-schema.js';
import type { Database } from './schema.js';

export interface FileRecord {
  id: string;
  orgId: string;
  purpose: FilePurpose;
  filename: string;
  bytes: number;
  lines: number;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms, or null: kept until deleted. */
  expiresAt: number | null;
}

/** A page of a list: oldest or newest first, after the record with the given id. */
export interface PageQuery {
  limit: number;
  order: 'asc' | 'desc';
  /** The id of the last record of the previous page. */
  after?: string | undefined;
}

export class BatchFiles {
  readonly #db: Kysely<BatchDatabase>;

  constructor(db: Kysely<Database>) {
    this.#db = batchDb(db);
  }

  /** Records the file; one with its id already recorded (an output file written again) stays as it is. */
  async add(file: FileRecord): Promise<void> {
    await this.#db
      .insertInto('batch_files')
      .values(rowOf(file))
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }

  /** The organization's file, or undefined (another organization's is not there for it). */
  async get(orgId: string, id: string): Promise<FileRecord | undefined> {
    const row = await this.#db
      .selectFrom('batch_files')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && recordOf(row);
  }

  /**
   * A page of the organization's files, of one purpose or all; one more than `limit` says whether more follow.
   * Undefined when `after` names none of its files (a cursor from elsewhere, or a file deleted since).
   */
  async list(orgId: string, page: PageQuery, purpose?: FilePurpose): Promise<FileRecord[] | undefined> {
    let query = this.#db.selectFrom('batch_files').selectAll().where('org_id', '=', orgId);
    if (purpose !== undefined) query = query.where('purpose', '=', purpose);
    if (page.after !== undefined) {
      const after = await this.get(orgId, page.after);
      if (after === undefined) return undefined;
      query = query.where((eb) =>
        page.order === 'desc'
          ? eb.or([
              eb('created_at', '<', after.createdAt),
              eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
            ])
          : eb.or([
              eb('created_at', '>', after.createdAt),
              eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
            ]),
      );
    }
    const rows = await query
      .orderBy('created_at', page.order)
      .orderBy('id', page.order)
      .limit(page.limit + 1)
      .execute();
    return rows.map(recordOf);
  }

  /** Removes the record; whether there was one. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('batch_files')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** How many files the organization has, and their bytes: what its quotas count. */
  async usage(orgId: string): Promise<{ files: number; bytes: number }> {
    const row = await this.#db
      .selectFrom('batch_files')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('files'),
        eb.fn.sum<number | string | null>('bytes').as('bytes'),
      ])
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    return { files: Number(row.files), bytes: Number(row.bytes ?? 0) };
  }

  /** Files whose retention ran out by `now`, oldest first. */
  async expired(now: number, limit: number): Promise<FileRecord[]> {
    const rows = await this.#db
      .selectFrom('batch_files')
      .selectAll()
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(recordOf);
  }
}

function rowOf(file: FileRecord): BatchFilesTable {
  return {
    id: file.id,
    org_id: file.orgId,
    purpose: file.purpose,
    filename: file.filename,
    bytes: file.bytes,
    lines: file.lines,
    created_at: file.createdAt,
    expires_at: file.expiresAt,
  };
}

function recordOf(row: Selectable<BatchFilesTable>): FileRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    purpose: row.purpose,
    filename: row.filename,
    bytes: Number(row.bytes),
    lines: Number(row.lines),
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  };
}
