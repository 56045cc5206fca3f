// The balance invariant (issue #11), read back from the store: for every organization,
//   balance = credits added − Σ cost of settled rows − Σ hold of open ('held') rows,
// exactly, in integer micro-credits. Released rows (orphaned holds refunded by the sweep) count for
// nothing. The tests, the fuzzer and `gateway ledger check` ask this after any sequence of requests.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface BalanceAudit {
  orgId: string;
  balanceMicros: number;
  creditsAddedMicros: number;
  settledCostMicros: number;
  openHoldsMicros: number;
  /** creditsAdded − settledCost − openHolds − balance: zero when the books balance. */
  discrepancyMicros: number;
}

/** The invariant's terms for every organization (or one), summed by the database. */
export async function auditBalances(db: Kysely<Database>, orgId?: string): Promise<BalanceAudit[]> {
  let query = db
    .selectFrom('orgs as o')
    .select([
      'o.id as id',
      'o.balance_micros as balance',
      sql<number>`coalesce((select sum(g.amount_micros) from credit_grants g where g.org_id = o.id), 0)`.as('added'),
      sql<number>`coalesce((select sum(u.cost_micros) from usage u where u.org_id = o.id and u.state = 'settled'), 0)`.as(
        'settled',
      ),
      sql<number>`coalesce((select sum(u.hold_micros) from usage u where u.org_id = o.id and u.state = 'held'), 0)`.as(
        'held',
      ),
    ])
    .orderBy('o.created_at');
  if (orgId !== undefined) query = query.where('o.id', '=', orgId);
  const rows = await query.execute();
  return rows.map((row) => {
    const [balance, added, settled, held] = [row.balance, row.added, row.settled, row.held].map(Number) as [
      number,
      number,
      number,
      number,
    ];
    return {
      orgId: row.id,
      balanceMicros: balance,
      creditsAddedMicros: added,
      settledCostMicros: settled,
      openHoldsMicros: held,
      discrepancyMicros: added - settled - held - balance,
    };
  });
}
