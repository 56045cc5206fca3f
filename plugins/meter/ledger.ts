// The meter's writes: a hold at admission and a settlement at the end, each atomic (the balance,
// lifetime spend and the usage ledger always move together); and the release of orphaned holds. A
// hold is taken only while the balance is above zero, in the same statement that reads it, so
// concurrent admissions cannot all pass on one stale balance. The hot statements are compiled once and
// run through the store's transactor; the holds and settlements of one event-loop turn share one
// transaction and one commit (store/group-commit.ts), and each promise resolves after that commit.
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../../proxy/dialect.js';
import { GroupCommit } from '../../store/group-commit.js';
import { checkedMicros } from '../../store/money.js';
import { QueryTemplate } from '../../store/query-template.js';
import type { Database } from '../../store/schema.js';
import type { Transactor } from '../../store/transactor.js';
import type { BilledUsage } from './price.js';

export interface Hold {
  /** The request id: the ledger row's id. */
  id: string;
  orgId: string;
  keyId: string;
  dialect: DialectName;
  holdMicros: number;
  /** Unix ms. */
  createdAt: number;
}

export interface Settlement {
  usage: BilledUsage;
  costMicros: number;
  /** The HTTP status the client got. */
  status: number;
  durationMs: number;
}

/** The hold was taken, or the balance (undefined: no such organization) was not above zero. */
export type HoldResult = { taken: true } | { taken: false; balanceMicros: number | undefined };

type Db = Kysely<Database>;

export class Ledger {
  readonly #db: Db;
  readonly #commits: GroupCommit;
  readonly #sql: ReturnType<typeof statements>;

  /** `transact` runs the hot path's transactions (the store's); `db` builds the statements and runs the sweep. */
  constructor(db: Db, transact: Transactor) {
    this.#db = db;
    this.#commits = new GroupCommit(transact);
    this.#sql = statements(db);
  }

  /** Takes `holdMicros` from a positive balance and writes the 'held' row, in one transaction. */
  hold(hold: Hold): Promise<HoldResult> {
    checkedMicros(hold.holdMicros, 'a hold');
    const sql = this.#sql;
    return this.#commits.run(async (trx): Promise<HoldResult> => {
      const debited = await trx.run(sql.debitHold.with({ hold: hold.holdMicros, org: hold.orgId }));
      if (debited.changes === 0) {
        const { rows } = await trx.run<{ balance_micros: number }>(sql.balance.with({ org: hold.orgId }));
        return { taken: false, balanceMicros: rows[0] === undefined ? undefined : Number(rows[0].balance_micros) };
      }
      await trx.run(
        sql.insertHold.with({
          id: hold.id,
          org: hold.orgId,
          key: hold.keyId,
          dialect: hold.dialect,
          hold: hold.holdMicros,
          at: hold.createdAt,
        }),
      );
      return { taken: true };
    });
  }

  /**
   * Settles a hold in one transaction: the row gets its tokens, cost, status and duration; the
   * balance gets the hold back and pays the cost; lifetime spend grows by the cost. A hold the orphan
   * sweep already released (and refunded) is settled too, without a second refund.
   */
  settle(hold: Hold, settlement: Settlement): Promise<void> {
    checkedMicros(settlement.costMicros, 'a cost');
    const sql = this.#sql;
    const { usage } = settlement;
    const row = {
      id: hold.id,
      input: usage.input,
      output: usage.output,
      cacheRead: usage.cacheRead,
      cacheWrite: usage.cacheWrite5m + usage.cacheWrite1h,
      searches: usage.searches,
      cost: settlement.costMicros,
      status: settlement.status,
      ms: settlement.durationMs,
    };
    return this.#commits.run(async (trx) => {
      let refund = hold.holdMicros;
      const fromHeld = await trx.run(sql.settleRow.with({ ...row, from: 'held' }));
      if (fromHeld.changes === 0) {
        refund = 0;
        await trx.run(sql.settleRow.with({ ...row, from: 'released' }));
      }
      await trx.run(
        sql.charge.with({ delta: refund - settlement.costMicros, cost: settlement.costMicros, org: hold.orgId }),
      );
    });
  }

  /**
   * Releases the holds written before `before` (Unix ms) that `inFlight` does not claim: each gets its
   * hold back on the balance and its row becomes 'released', with a zero cost. Returns how many.
   */
  async releaseOrphans(before: number, inFlight: (id: string) => boolean): Promise<number> {
    const candidates = await this.#db
      .selectFrom('usage')
      .select(['id', 'org_id', 'hold_micros'])
      .where('state', '=', 'held')
      .where('created_at', '<', before)
      .execute();
    const orphans = candidates.filter((row) => !inFlight(row.id));
    if (orphans.length === 0) return 0;
    return this.#db.transaction().execute(async (trx) => {
      let released = 0;
      for (const orphan of orphans)
        if (await release(trx, orphan.id, orphan.org_id, Number(orphan.hold_micros))) released++;
      return released;
    });
  }
}

async function release(trx: Transaction<Database>, id: string, orgId: string, holdMicros: number): Promise<boolean> {
  const marked = await trx
    .updateTable('usage')
    .set({ state: 'released' })
    .where('id', '=', id)
    .where('state', '=', 'held')
    .executeTakeFirst();
  if (marked.numUpdatedRows === 0n) return false;
  await trx
    .updateTable('orgs')
    .set((eb) => ({ balance_micros: eb('balance_micros', '+', holdMicros) }))
    .where('id', '=', orgId)
    .execute();
  return true;
}

/** The hot path's statements, compiled once. */
function statements(db: Db) {
  return {
    debitHold: new QueryTemplate<{ hold: number; org: string }>((arg) =>
      db
        .updateTable('orgs')
        .set((eb) => ({ balance_micros: eb('balance_micros', '-', arg('hold')) }))
        .where('id', '=', arg('org'))
        .where('balance_micros', '>', 0),
    ),
    balance: new QueryTemplate<{ org: string }>((arg) =>
      db.selectFrom('orgs').select('balance_micros').where('id', '=', arg('org')),
    ),
    insertHold: new QueryTemplate<{
      id: string;
      org: string;
      key: string;
      dialect: DialectName;
      hold: number;
      at: number;
    }>((arg) =>
      db.insertInto('usage').values({
        id: arg('id'),
        org_id: arg('org'),
        key_id: arg('key'),
        dialect: arg('dialect'),
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        searches: 0,
        cost_micros: 0,
        status: 0,
        duration_ms: 0,
        created_at: arg('at'),
        state: 'held',
        hold_micros: arg('hold'),
      }),
    ),
    settleRow: new QueryTemplate<{
      id: string;
      from: 'held' | 'released';
      input: number;
      output: number;
      cacheRead: number;
      cacheWrite: number;
      searches: number;
      cost: number;
      status: number;
      ms: number;
    }>((arg) =>
      db
        .updateTable('usage')
        .set({
          state: 'settled',
          input_tokens: arg('input'),
          output_tokens: arg('output'),
          cache_read_tokens: arg('cacheRead'),
          cache_write_tokens: arg('cacheWrite'),
          searches: arg('searches'),
          cost_micros: arg('cost'),
          status: arg('status'),
          duration_ms: arg('ms'),
        })
        .where('id', '=', arg('id'))
        .where('state', '=', arg('from')),
    ),
    charge: new QueryTemplate<{ delta: number; cost: number; org: string }>((arg) =>
      db
        .updateTable('orgs')
        .set((eb) => ({
          balance_micros: eb('balance_micros', '+', arg('delta')),
          spent_micros: eb('spent_micros', '+', arg('cost')),
        }))
        .where('id', '=', arg('org')),
    ),
  };
}
