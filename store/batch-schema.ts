// The batch tables as Kysely sees them (migration 0009-batches). Kept beside schema.ts rather than in it:
// the store's parts that own these tables open them with `batchDb(db)`.
import type { ColumnType, Kysely } from 'kysely';
import type { Database } from './schema.js';

/** `batch`: a batch's input (a JSONL upload); `batch_output`: a batch's output or error file. */
export type FilePurpose = 'batch' | 'batch_output';

/** Which vendor's API made the batch: it decides the batch's and its results' shape. */
export type BatchApi = 'openai' | 'anthropic';

/** OpenAI's statuses; an Anthropic batch shows them as its processing_status (in_progress, canceling, ended). */
export type BatchStatus =
  'validating' | 'in_progress' | 'finalizing' | 'completed' | 'failed' | 'expired' | 'cancelling' | 'cancelled';

/** A line waits (`queued`), runs on a node that holds its lease (`running`), or has its outcome. */
export type LineState = 'queued' | 'running' | 'succeeded' | 'errored' | 'canceled' | 'expired';

export interface BatchFilesTable {
  id: string;
  org_id: string;
  purpose: FilePurpose;
  filename: string;
  bytes: number;
  /** JSON lines in it. */
  lines: number;
  created_at: number;
  /** Unix ms after which retention deletes it; null: kept until deleted. */
  expires_at: number | null;
}

export interface BatchesTable {
  id: string;
  org_id: string;
  /** The key that made the batch: its lines run as that key (revoked since: they fail 401). */
  key_id: string;
  api: BatchApi;
  /** The path each line is a request to: /v1/chat/completions, /v1/responses or /v1/messages. */
  endpoint: string;
  /** The input file (OpenAI); null for an Anthropic batch, whose requests came in its body. */
  input_file_id: string | null;
  /** Where the lines' bodies are in the file storage. */
  input_object: string;
  status: BatchStatus;
  /** JSON text: the caller's metadata (OpenAI), or null. */
  metadata: string | null;
  /** JSON text: why the batch failed (OpenAI's `errors`), or null. */
  errors: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  /** Unix ms: the end of the completion window; lines not run by then expire, billed nothing. */
  expires_at: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  /** When it reached an end (completed, failed, expired, cancelled): retention counts from here. */
  ended_at: number | null;
}

export interface BatchLinesTable {
  batch_id: string;
  /** 0-based, in the order of the input. */
  line_no: number;
  custom_id: string;
  body_offset: number;
  body_length: number;
  state: LineState;
  /** How many times a node claimed it; each attempt is one request id (and at most one ledger row). */
  attempt: ColumnType<number, number | undefined, number>;
  /** The node running it, and until when its claim holds (renewed while it runs). */
  lease_owner: string | null;
  lease_until: number | null;
  /** The HTTP status its request got, once run. */
  status_code: number | null;
  /** JSON text: its line of the output or error file (OpenAI) or of the results (Anthropic). */
  result: string | null;
  finished_at: number | null;
}

// A type, not an interface: withTables wants a record type.
export type BatchTables = {
  batch_files: BatchFilesTable;
  batches: BatchesTable;
  batch_lines: BatchLinesTable;
};

export type BatchDatabase = Database & BatchTables;

/** The store's database with the batch tables. */
export function batchDb(db: Kysely<Database>): Kysely<BatchDatabase> {
  return db.withTables<BatchTables>();
}
