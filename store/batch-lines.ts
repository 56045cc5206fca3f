// The lines of a batch as work (issue #29): a node claims queued lines with a lease, renews it while they run,
// and records each line's outcome only while its claim is still its own. A line whose node died (its lease ran
// out) is claimed again by any node, as a new attempt: the same line never runs on two nodes at once, and its
// result is written once. Each attempt is one request id (`attemptId`), so one ledger row at most.
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import { batchDb, type BatchDatabase, type BatchLinesTable, type LineState } from './batch-schema.js';
import type { Database } from './schema.js';

/** A line a node has claimed: where its body is, and which attempt this is. */
export interface ClaimedLine {
  batchId: string;
  lineNo: number;
  customId: string;
  offset: number;
  length: number;
  attempt: number;
}

/** A line's outcome: its state, its request's status and its result line (JSON text). */
export interface LineOutcome {
  state: Extract<LineState, 'succeeded' | 'errored'>;
  statusCode: number;
  result: string;
}

/** One line's result, as the results read them. */
export interface LineResult {
  lineNo: number;
  customId: string;
  state: LineState;
  statusCode: number | null;
  result: string | null;
}

/** What claiming one given line got: the line; or the end of another node's live claim on it; or that it ended. */
export type LineClaim = { claimed: ClaimedLine } | { claimedElsewhereUntil: number } | { ended: true };

/** A line a node may claim: it waits, or its claim ran out. */
const claimable =
  (now: number) =>
  (eb: ExpressionBuilder<BatchDatabase, 'batch_lines'>): Expression<SqlBool> =>
    eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)])]);

/** What a claim reads back of each line it took. */
const CLAIMED_COLUMNS = ['line_no', 'custom_id', 'body_offset', 'body_length', 'attempt'] as const;

function claimedLine(
  batchId: string,
  row: Pick<Selectable<BatchLinesTable>, (typeof CLAIMED_COLUMNS)[number]>,
): ClaimedLine {
  return {
    batchId,
    lineNo: Number(row.line_no),
    customId: row.custom_id,
    offset: Number(row.body_offset),
    length: Number(row.body_length),
    attempt: Number(row.attempt),
  };
}

/** The request id of one attempt at a line: its ledger row's id too. */
export function attemptId(batchId: string, lineNo: number, attempt: number): string {
  return `${batchId}.${lineNo}.${attempt}`;
}

export class BatchLines {
  readonly #db: Kysely<BatchDatabase>;

  constructor(db: Kysely<Database>) {
    this.#db = batchDb(db);
  }

  /**
   * Claims up to `count` of the batch's lines that wait, or whose claim ran out, for `owner` until
   * `leaseUntil`. The state is checked again by the update itself, so of two nodes that picked the same
   * line, one gets it.
   */
  async claim(batchId: string, owner: string, count: number, now: number, leaseUntil: number): Promise<ClaimedLine[]> {
    const rows = await this.#db
      .updateTable('batch_lines')
      .set((eb) => ({
        state: 'running',
        lease_owner: owner,
        lease_until: leaseUntil,
        attempt: eb('attempt', '+', 1),
      }))
      .where('batch_id', '=', batchId)
      .where(claimable(now))
      .where('line_no', 'in', (eb) =>
        eb
          .selectFrom('batch_lines')
          .select('line_no')
          .where('batch_id', '=', batchId)
          .where(claimable(now))
          .orderBy('line_no')
          .limit(count),
      )
      .returning(CLAIMED_COLUMNS)
      .execute();
    return rows.map((row) => claimedLine(batchId, row));
  }

  /**
   * Claims the one line (a job queue's job named it), as `claim` would: if it waits, or its claim ran out. If
   * not, says why: another node's claim still runs, or the line ended (or is not there).
   */
  async claimLine(batchId: string, lineNo: number, owner: string, now: number, leaseUntil: number): Promise<LineClaim> {
    const claimed = await this.#db
      .updateTable('batch_lines')
      .set((eb) => ({ state: 'running', lease_owner: owner, lease_until: leaseUntil, attempt: eb('attempt', '+', 1) }))
      .where('batch_id', '=', batchId)
      .where('line_no', '=', lineNo)
      .where(claimable(now))
      .returning(CLAIMED_COLUMNS)
      .executeTakeFirst();
    if (claimed !== undefined) return { claimed: claimedLine(batchId, claimed) };
    const line = await this.#db
      .selectFrom('batch_lines')
      .select(['state', 'lease_until'])
      .where('batch_id', '=', batchId)
      .where('line_no', '=', lineNo)
      .executeTakeFirst();
    return line?.state === 'running' && line.lease_until !== null
      ? { claimedElsewhereUntil: Number(line.lease_until) }
      : { ended: true };
  }

  /** The line's state, or undefined if there is no such line. */
  async stateOf(batchId: string, lineNo: number): Promise<LineState | undefined> {
    const line = await this.#db
      .selectFrom('batch_lines')
      .select('state')
      .where('batch_id', '=', batchId)
      .where('line_no', '=', lineNo)
      .executeTakeFirst();
    return line?.state;
  }

  /** Extends the claims `owner` still holds on these lines of the batch. */
  async renew(batchId: string, owner: string, lineNos: readonly number[], leaseUntil: number): Promise<void> {
    if (lineNos.length === 0) return;
    await this.#db
      .updateTable('batch_lines')
      .set({ lease_until: leaseUntil })
      .where('batch_id', '=', batchId)
      .where('line_no', 'in', lineNos)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Records the line's outcome if this attempt's claim is still `owner`'s: whether it was. */
  async finish(line: ClaimedLine, owner: string, outcome: LineOutcome, now: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('batch_lines')
      .set({
        state: outcome.state,
        status_code: outcome.statusCode,
        result: outcome.result,
        finished_at: now,
        lease_owner: null,
        lease_until: null,
      })
      .where('batch_id', '=', line.batchId)
      .where('line_no', '=', line.lineNo)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .where('attempt', '=', line.attempt)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Gives the line back to the queue (its pool's rate limit said wait), if this attempt's claim is `owner`'s. */
  async release(line: ClaimedLine, owner: string): Promise<void> {
    await this.#db
      .updateTable('batch_lines')
      .set({ state: 'queued', lease_owner: null, lease_until: null })
      .where('batch_id', '=', line.batchId)
      .where('line_no', '=', line.lineNo)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .where('attempt', '=', line.attempt)
      .execute();
  }

  /**
   * Ends the batch's lines whose node stopped running them (their claim ran out) as `state`: a cancelled or
   * expired batch takes none of them up again. How many.
   */
  async endAbandoned(batchId: string, state: 'canceled' | 'expired', now: number): Promise<number> {
    const result = await this.#db
      .updateTable('batch_lines')
      .set({ state, finished_at: now, lease_owner: null, lease_until: null })
      .where('batch_id', '=', batchId)
      .where('state', '=', 'running')
      .where('lease_until', '<', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Whether an earlier attempt at the line was billed (its ledger row settled): then it runs again unbilled. */
  async billedBefore(line: ClaimedLine): Promise<boolean> {
    if (line.attempt <= 1) return false;
    const earlier = Array.from({ length: line.attempt - 1 }, (_, i) => attemptId(line.batchId, line.lineNo, i + 1));
    const row = await this.#db
      .selectFrom('usage')
      .select('id')
      .where('id', 'in', earlier)
      .where('state', '=', 'settled')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The batch's lines in input order, from `fromLine` on, `count` at most. */
  async results(batchId: string, fromLine: number, count: number): Promise<LineResult[]> {
    const rows = await this.#db
      .selectFrom('batch_lines')
      .select(['line_no', 'custom_id', 'state', 'status_code', 'result'])
      .where('batch_id', '=', batchId)
      .where('line_no', '>=', fromLine)
      .orderBy('line_no')
      .limit(count)
      .execute();
    return rows.map((row) => ({
      lineNo: Number(row.line_no),
      customId: row.custom_id,
      state: row.state,
      statusCode: row.status_code === null ? null : Number(row.status_code),
      result: row.result,
    }));
  }
}
