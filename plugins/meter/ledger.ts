// The meter's writes: a hold at admission and a settlement at the end, each atomic (the balance,
// lifetime spend and the usage ledger always move together); and the release of orphaned holds. A
// hold is taken only while the balance is above zero, decided by the statement that reads the balance
// (under the transaction's lock on it), so concurrent admissions cannot all pass on one stale balance;
// before it, in the same transaction, the caller's spend and concurrency caps (cap-admission.ts). A
// settlement also adds its cost to its key's spend of the day (what the spend caps add up).
// The holds and settlements of one event-loop turn are written together, in one transaction and one
// commit (store/group-commit.ts), each promise resolving after that commit: first the settlements, then
// the holds, with the same result as writing them one at a time in that order. Each kind costs a
// statement per 64 rows, and the money a statement per 64 organizations (ledger-statements.ts).
// On PostgreSQL, where nodes share the store, a batch first locks its organizations' rows in a fixed
// order, so two nodes' batches queue rather than deadlock, and a batch the server still aborts (a
// deadlock or serialization failure) is run again (store/transaction-retry.ts), not failed.
import { sql as rawSql, SqliteAdapter, type Kysely, type Transaction } from 'kysely';
import { MAX_BATCH_ROWS } from '../../store/batch-template.js';
import { GroupCommit } from '../../store/group-commit.js';
import { checkedMicros } from '../../store/money.js';
import type { Database } from '../../store/schema.js';
import { retryConflicts } from '../../store/transaction-retry.js';
import type { SqlRunner, Transactor } from '../../store/transactor.js';
import { CapAdmission, type CapRefusal, type HoldCap } from './cap-admission.js';
import { DAY_MS } from '../../store/cap-rules.js';
import { ledgerStatements, type LedgerStatements } from './ledger-statements.js';
import { checkedSum, MoneyMoves } from './money-moves.js';
import type { BilledUsage } from './price.js';

export interface Hold {
  /** The request id: the ledger row's id. */
  id: string;
  orgId: string;
  keyId: string;
  dialect: string;
  holdMicros: number;
  /** Unix ms. */
  createdAt: number;
  /** The model the request named (the usage export groups by it). */
  model?: string;
  /** The member who made the key, if a member did: the hold counts in the member's caps too. */
  member?: string;
  /** The caller's spend and concurrency caps, which the hold must fit (cap-admission.ts). */
  caps?: readonly HoldCap[];
  /**
   * The batch whose line the request is: the ledger row names it, and the balance must cover the whole hold
   * (a live request's needs only a balance above zero), so batch work never takes the balance below zero.
   */
  batchId?: string;
  /** The service tier the request is served at (its price is the tier's): the ledger row names it. */
  serviceTier?: string;
}

export interface Settlement {
  usage: BilledUsage;
  costMicros: number;
  /** The HTTP status the client got. */
  status: number;
  durationMs: number;
}

/**
 * The hold was taken; or a cap of the caller's did not fit it; or the balance (undefined: no such
 * organization) was not above zero.
 */
export type HoldResult =
  | { taken: true }
  | { taken: false; cap: CapRefusal }
  | { taken: false; cap?: undefined; balanceMicros: number | undefined };

const TAKEN: HoldResult = Object.freeze({ taken: true });

/** A hold, or a settlement, waiting for its turn's transaction. */
type Write = { hold: Hold; settlement: undefined } | Settling;
type Settling = { hold: Hold; settlement: Settlement };

/** A hold's write resolves with its HoldResult, a settlement's with nothing. */
type Written = HoldResult | void;

type Db = Kysely<Database>;

/** Which holds a sweep may release besides the old ones (store/node-lease.ts). */
export interface SweepNodes {
  /** This node: its old holds that it no longer meters are orphans. */
  own: string;
  /** Nodes whose lease ran out: all their holds are orphans, whatever their age. */
  dead: readonly string[];
}

/** Holds released per transaction by the sweep. */
const RELEASE_BATCH = 500;

export class Ledger {
  readonly #db: Db;
  readonly #sql: LedgerStatements;
  readonly #commits: GroupCommit<Write, Written>;
  readonly #nodeId: string | null;
  readonly #caps: CapAdmission;

  /**
   * `transact` runs the hot path's transactions (the store's); `db` builds the statements and runs the
   * sweep; `nodeId`, this node's lease, is written on every hold.
   */
  constructor(db: Db, transact: Transactor, nodeId?: string) {
    this.#db = db;
    this.#sql = ledgerStatements(db);
    this.#nodeId = nodeId ?? null;
    this.#caps = new CapAdmission(db);
    this.#commits = new GroupCommit(transact, (sql, writes) => this.#write(sql, writes));
  }

  /** Takes `holdMicros` from a positive balance and writes the 'held' row, in one transaction. */
  hold(hold: Hold): Promise<HoldResult> {
    checkedMicros(hold.holdMicros, 'a hold');
    return this.#commits.run({ hold, settlement: undefined }) as Promise<HoldResult>;
  }

  /**
   * Settles a hold in one transaction: the row gets its tokens, cost, status and duration; the
   * balance gets the hold back and pays the cost; lifetime spend grows by the cost. A hold the orphan
   * sweep already released (and refunded) is settled too, without a second refund.
   */
  settle(hold: Hold, settlement: Settlement): Promise<void> {
    checkedMicros(settlement.costMicros, 'a cost');
    return this.#commits.run({ hold, settlement }) as Promise<void>;
  }

  /**
   * One turn's writes: the settlements' rows and their keys' spend, the holds' rows (those that fit
   * their caps), then the money of both in one go.
   */
  async #write(sql: SqlRunner, writes: readonly Write[]): Promise<Written[]> {
    const holds: Hold[] = [];
    const settlements: Settling[] = [];
    for (const write of writes) {
      if (write.settlement === undefined) holds.push(write.hold);
      else settlements.push(write);
    }
    if (this.#sql.locksRows) await this.#lockOrgs(sql, writes);
    const moves = new MoneyMoves();
    if (settlements.length > 0) {
      await this.#settleRows(sql, settlements, moves);
      await this.#addKeySpend(sql, settlements);
    }
    const refusals = holds.length > 0 ? await this.#caps.refusals(sql, holds) : [];
    const admitted = holds.filter((_, index) => refusals[index] === undefined);
    const taken = admitted.length > 0 ? await this.#takeHolds(sql, admitted, moves) : [];
    await moves.write(sql, this.#sql.moveMoney);
    const results = await this.#holdResults(sql, admitted, taken);
    let nextAdmitted = 0;
    const holdResults = refusals.map((cap): HoldResult =>
      cap === undefined ? results[nextAdmitted++]! : { taken: false, cap },
    );
    let next = 0;
    return writes.map((write) => (write.settlement === undefined ? holdResults[next++] : undefined));
  }

  /** Adds the settlements' costs to their keys' spend of the day each was admitted, summed per key and day. */
  async #addKeySpend(sql: SqlRunner, settlements: readonly Settling[]): Promise<void> {
    const spends = new Map<string, { key: string; day: number; org: string; amount: number }>();
    for (const { hold, settlement } of settlements) {
      if (settlement.costMicros === 0) continue;
      const day = Math.floor(hold.createdAt / DAY_MS);
      const id = `${hold.keyId}\u0000${day}`;
      const spend = spends.get(id);
      if (spend === undefined) spends.set(id, { key: hold.keyId, day, org: hold.orgId, amount: settlement.costMicros });
      else spend.amount = checkedSum(spend.amount + settlement.costMicros);
    }
    const cells: unknown[] = [];
    for (const spend of spends.values()) cells.push(spend.key, spend.day, spend.org, spend.amount);
    for (let from = 0; from < spends.size; from += MAX_BATCH_ROWS)
      await sql.run(this.#sql.addKeySpend.bind(cells, from, Math.min(MAX_BATCH_ROWS, spends.size - from)));
  }

  /** Locks the batch's organizations, in the order of their ids (ledger-statements.ts, lockOrgs). */
  async #lockOrgs(sql: SqlRunner, writes: readonly Write[]): Promise<void> {
    const orgs = [...new Set(writes.map((write) => write.hold.orgId))].sort();
    for (let from = 0; from < orgs.length; from += MAX_BATCH_ROWS)
      await sql.run(this.#sql.lockOrgs.bind(orgs, from, Math.min(MAX_BATCH_ROWS, orgs.length - from)));
  }

  /**
   * Settles the rows and adds their money to `moves`: a row still held is settled and refunds its
   * hold; a row the sweep released is settled with no refund; either way the cost is paid and added to
   * lifetime spend. A statement takes up to MAX_BATCH_ROWS rows, and no row twice (a second
   * settlement of one hold goes to the next statement, where it finds the row settled).
   */
  async #settleRows(sql: SqlRunner, settlements: readonly Settling[], moves: MoneyMoves): Promise<void> {
    for (let from = 0; from < settlements.length;) {
      const unrefunded = new Set<string>();
      let to = from;
      while (to < settlements.length && to - from < MAX_BATCH_ROWS && !unrefunded.has(settlements[to]!.hold.id))
        unrefunded.add(settlements[to++]!.hold.id);
      const batch = settlements.slice(from, to);
      const { rows } = await sql.run<{ id: string }>(
        this.#sql.settleRows.bind(settleCells(batch, 'held'), 0, batch.length),
      );
      for (const row of rows) unrefunded.delete(row.id);
      if (unrefunded.size > 0) {
        const released = batch.filter((write) => unrefunded.has(write.hold.id));
        await sql.run(this.#sql.settleRows.bind(settleCells(released, 'released'), 0, released.length));
      }
      for (const { hold, settlement } of batch) {
        const refund = unrefunded.has(hold.id) ? 0 : hold.holdMicros;
        moves.add(hold.orgId, refund - settlement.costMicros, settlement.costMicros);
      }
      from = to;
    }
  }

  /**
   * Writes the 'held' rows of the holds the balances cover, adds their debits to `moves` and returns,
   * per hold, whether it was taken. A hold is taken while its balance, as the settlements and the
   * holds taken before it left it, is above zero (a batch line's: while it covers the hold whole): each
   * row carries what those take from the balance (`ahead`; the money is not written yet), and is taken
   * if the balance is above it. In one statement a hold is taken only if the ones before it were, so a
   * hold that follows a batch line's hold of its organization (which may be refused while it is taken)
   * goes to the next statement, which knows what was taken.
   */
  async #takeHolds(sql: SqlRunner, holds: readonly Hold[], moves: MoneyMoves): Promise<boolean[]> {
    const taken: boolean[] = [];
    for (let from = 0; from < holds.length;) {
      // Per organization: the sum of its holds so far in this statement; and the ones with a batch line's hold in it.
      const sums = new Map<string, number>();
      const afterBatchLine = new Set<string>();
      const cells: unknown[] = [];
      let to = from;
      while (to < holds.length && to - from < MAX_BATCH_ROWS && !afterBatchLine.has(holds[to]!.orgId)) {
        const hold = holds[to++]!;
        const sum = sums.get(hold.orgId) ?? 0;
        // Taken while `ahead < balance`; a batch line's while `ahead + hold ≤ balance`, the same test on ahead + hold − 1.
        const whole = hold.batchId !== undefined && hold.holdMicros > 0 ? hold.holdMicros - 1 : 0;
        const ahead = checkedSum(sum + whole - moves.balanceOf(hold.orgId));
        cells.push(
          hold.id,
          hold.orgId,
          hold.keyId,
          hold.dialect,
          hold.holdMicros,
          ahead,
          hold.createdAt,
          this.#nodeId,
          hold.model ?? null,
          hold.batchId ?? null,
          hold.serviceTier ?? null,
        );
        sums.set(hold.orgId, checkedSum(sum + hold.holdMicros));
        if (hold.batchId !== undefined) afterBatchLine.add(hold.orgId);
      }
      const { rows } = await sql.run<{ id: string }>(this.#sql.insertHolds.bind(cells, 0, to - from));
      const ids = new Set(rows.map((row) => row.id));
      for (const hold of holds.slice(from, to)) {
        const isTaken = ids.has(hold.id);
        if (isTaken) moves.add(hold.orgId, -hold.holdMicros, 0);
        taken.push(isTaken);
      }
      from = to;
    }
    return taken;
  }

  /** Taken, or refused with the balance the hold saw: its organization's now, every hold before it paid. */
  async #holdResults(sql: SqlRunner, holds: readonly Hold[], taken: readonly boolean[]): Promise<HoldResult[]> {
    const balances = new Map<string, number | undefined>();
    const results: HoldResult[] = [];
    for (let index = 0; index < holds.length; index++) {
      if (taken[index]) {
        results.push(TAKEN);
        continue;
      }
      const org = holds[index]!.orgId;
      if (!balances.has(org)) {
        const { rows } = await sql.run<{ balance_micros: number }>(this.#sql.balance.with({ org }));
        balances.set(org, rows[0] === undefined ? undefined : Number(rows[0].balance_micros));
      }
      results.push({ taken: false, balanceMicros: balances.get(org) });
    }
    return results;
  }

  /**
   * Releases orphaned holds: each gets its hold back on the balance and its row becomes 'released',
   * with a zero cost. An orphan is a hold of a dead node (`nodes.dead`), or one written before `before`
   * (Unix ms) that `inFlight` does not claim, of this node, of no node (written before node leases),
   * or of any node when `nodes` is not given. A live node's holds are its own to sweep. Each batch of
   * releases is one transaction with one refund per organization. Returns how many were released.
   */
  async releaseOrphans(before: number, inFlight: (id: string) => boolean, nodes?: SweepNodes): Promise<number> {
    const candidates = await this.#db
      .selectFrom('usage')
      .select(['id', 'org_id', 'node_id', 'created_at'])
      // A literal, not a parameter: only then may SQLite read the partial index of open holds (usage_held).
      .where('state', '=', rawSql.lit('held'))
      .where((eb) =>
        nodes === undefined || nodes.dead.length === 0
          ? eb('created_at', '<', before)
          : eb.or([eb('created_at', '<', before), eb('node_id', 'in', nodes.dead)]),
      )
      .execute();
    const dead = new Set(nodes?.dead);
    const orphans = candidates.filter((row) => {
      if (row.node_id !== null && dead.has(row.node_id)) return true;
      if (row.created_at >= before || inFlight(row.id)) return false;
      return nodes === undefined || row.node_id === null || row.node_id === nodes.own;
    });
    let released = 0;
    for (let from = 0; from < orphans.length; from += RELEASE_BATCH) {
      const ids = orphans.slice(from, from + RELEASE_BATCH).map((row) => row.id);
      released += await retryConflicts(() => this.#db.transaction().execute((trx) => release(trx, ids)));
    }
    return released;
  }
}

/**
 * Marks the rows still held among `ids` released and gives each organization its holds back in one
 * update; on PostgreSQL the organizations are locked first, in the order the meter's batches use.
 */
async function release(trx: Transaction<Database>, ids: readonly string[]): Promise<number> {
  const held = await trx
    .selectFrom('usage')
    .select('org_id')
    .where('id', 'in', ids)
    .where('state', '=', 'held')
    .execute();
  const orgs = [...new Set(held.map((row) => row.org_id))].sort();
  if (orgs.length === 0) return 0;
  if (!(trx.getExecutor().adapter instanceof SqliteAdapter))
    await trx
      .selectFrom('orgs')
      .select('id')
      .where('id', 'in', orgs)
      .orderBy(rawSql`id collate "C"`)
      .forNoKeyUpdate()
      .execute();
  const marked = await trx
    .updateTable('usage')
    .set({ state: 'released' })
    .where('id', 'in', ids)
    .where('state', '=', 'held')
    .returning(['org_id', 'hold_micros'])
    .execute();
  const refunds = new Map<string, number>();
  for (const row of marked) refunds.set(row.org_id, checkedSum((refunds.get(row.org_id) ?? 0) + row.hold_micros));
  for (const org of [...refunds.keys()].sort()) {
    const refund = refunds.get(org)!;
    await trx
      .updateTable('orgs')
      .set((eb) => ({ balance_micros: eb('balance_micros', '+', refund) }))
      .where('id', '=', org)
      .execute();
  }
  return marked.length;
}

/** The rows of settleRows (its columns, in order) for these settlements, of rows now in state `from`. */
function settleCells(settlements: readonly Settling[], from: 'held' | 'released'): unknown[] {
  const cells: unknown[] = [];
  for (const { hold, settlement } of settlements) {
    const { usage } = settlement;
    cells.push(
      hold.id,
      from,
      usage.input,
      usage.output,
      usage.cacheRead,
      usage.cacheWrite5m + usage.cacheWrite1h,
      usage.searches,
      settlement.costMicros,
      settlement.status,
      settlement.durationMs,
    );
  }
  return cells;
}
