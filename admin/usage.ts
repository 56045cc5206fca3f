// An organization's usage per UTC day, summed from the usage ledger over the last `days` days (today
// included). Days are bucketed as whole days since the epoch (integer division), which SQLite and
// PostgreSQL compute alike.
import { sql, type Kysely } from 'kysely';
import { formatCredits } from '../store/credits.js';
import type { Database } from '../store/schema.js';

const DAY_MS = 86_400_000;
/** The day bucket, with the divisor as a literal so both places read the same integer expression. */
const DAY = sql<number>`created_at / ${sql.lit(DAY_MS)}`;

export interface UsageTotals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  searches: number;
  cost: string;
  cost_micros: number;
}

export interface UsageReport {
  org_id: string;
  days: number;
  /** First and last UTC day of the window, YYYY-MM-DD. */
  from: string;
  to: string;
  /** Days with usage, oldest first. */
  daily: Array<{ date: string } & UsageTotals>;
  totals: UsageTotals;
}

export async function usageByDay(
  db: Kysely<Database>,
  orgId: string,
  days: number,
  now: number = Date.now(),
): Promise<UsageReport> {
  const today = Math.floor(now / DAY_MS);
  const firstDay = today - days + 1;
  const rows = await db
    .selectFrom('usage')
    .select((eb) => [
      DAY.as('day'),
      eb.fn.countAll<number>().as('requests'),
      eb.fn.sum<number>('input_tokens').as('input_tokens'),
      eb.fn.sum<number>('output_tokens').as('output_tokens'),
      eb.fn.sum<number>('cache_read_tokens').as('cache_read_tokens'),
      eb.fn.sum<number>('cache_write_tokens').as('cache_write_tokens'),
      eb.fn.sum<number>('searches').as('searches'),
      eb.fn.sum<number>('cost_micros').as('cost_micros'),
    ])
    .where('org_id', '=', orgId)
    // Held rows are requests still running (or orphaned), released ones never finished: not usage.
    .where('state', '=', 'settled')
    .where('created_at', '>=', firstDay * DAY_MS)
    .groupBy(DAY)
    .orderBy('day')
    .execute();
  const daily = rows.map((row) => ({
    date: isoDay(Number(row.day)),
    ...totalsOf([row]),
  }));
  return { org_id: orgId, days, from: isoDay(firstDay), to: isoDay(today), daily, totals: totalsOf(rows) };
}

type Sums = Omit<UsageTotals, 'cost'>;

/** Sums rows (drivers may hand sums back as strings or bigints, hence Number). */
function totalsOf(rows: ReadonlyArray<Record<keyof Sums, unknown>>): UsageTotals {
  const sum = (field: keyof Sums): number => rows.reduce((total, row) => total + Number(row[field] ?? 0), 0);
  const cost_micros = sum('cost_micros');
  return {
    requests: sum('requests'),
    input_tokens: sum('input_tokens'),
    output_tokens: sum('output_tokens'),
    cache_read_tokens: sum('cache_read_tokens'),
    cache_write_tokens: sum('cache_write_tokens'),
    searches: sum('searches'),
    cost: formatCredits(cost_micros),
    cost_micros,
  };
}

function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
