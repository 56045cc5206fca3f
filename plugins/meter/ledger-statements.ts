// The meter's hot statements, built and compiled once (per batch size): each takes the rows of a
// whole batch (store/batch-template.ts), so the holds, or the settlements, of one event-loop turn cost
// a few statements however many they are. Every row of nulls that pads a batch matches nothing.
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import { BatchTemplate } from '../../store/batch-template.js';
import { QueryTemplate } from '../../store/query-template.js';
import type { Database, UsageState } from '../../store/schema.js';

export type LedgerStatements = ReturnType<typeof ledgerStatements>;

export function ledgerStatements(db: Kysely<Database>) {
  // Holds decide on the balances they read: on PostgreSQL they lock those rows until the commit, so a
  // concurrent transaction's holds wait and then see the debit. SQLite has no row locks and needs
  // none: a transaction holds the database's write lock from its first write, and these all write.
  const lockBalances = !(db.getExecutor().adapter instanceof SqliteAdapter);
  return {
    /** PostgreSQL: a batch locks its organizations before anything else (lockOrgs). */
    locksRows: lockBalances,
    /**
     * Locks organizations' rows in one fixed order (their ids' bytes: `collate "C"`, as JavaScript
     * sorts ASCII), so two nodes' batches that share organizations queue instead of deadlocking.
     */
    lockOrgs: new BatchTemplate({ org: 'text' }, (orgs) =>
      db
        .selectFrom('orgs')
        .select('id')
        .where('id', 'in', db.selectFrom(orgs.as('l')).select('l.org'))
        .orderBy(sql`id collate "C"`)
        .forNoKeyUpdate(),
    ),
    /**
     * Writes the 'held' rows of the holds the balances cover. A hold is taken while its balance, less
     * the holds of the batch before it (`ahead`), is above zero: the same holds as one at a time, in
     * order. Returns one row (its id) per hold taken.
     */
    insertHolds: new BatchTemplate(
      {
        id: 'text',
        org: 'text',
        key: 'text',
        dialect: 'text',
        amount: 'bigint',
        ahead: 'bigint',
        at: 'bigint',
        node: 'text',
        model: 'text',
        batch: 'text',
        tier: 'text',
      },
      (holds) =>
        db
          .insertInto('usage')
          .columns([
            'id',
            'org_id',
            'key_id',
            'dialect',
            'input_tokens',
            'output_tokens',
            'cache_read_tokens',
            'cache_write_tokens',
            'searches',
            'cost_micros',
            'status',
            'duration_ms',
            'created_at',
            'state',
            'hold_micros',
            'node_id',
            'model',
            'batch_id',
            'service_tier',
          ])
          .expression((eb) =>
            eb
              .selectFrom(holds.as('h'))
              .innerJoin('orgs', 'orgs.id', 'h.org')
              .select((eb) => [
                'h.id',
                'h.org',
                'h.key',
                'h.dialect',
                eb.lit(0).as('input_tokens'),
                eb.lit(0).as('output_tokens'),
                eb.lit(0).as('cache_read_tokens'),
                eb.lit(0).as('cache_write_tokens'),
                eb.lit(0).as('searches'),
                eb.lit(0).as('cost_micros'),
                eb.lit(0).as('status'),
                eb.lit(0).as('duration_ms'),
                'h.at',
                sql.lit<UsageState>('held').as('state'),
                'h.amount',
                'h.node',
                'h.model',
                'h.batch',
                'h.tier',
              ])
              .whereRef('h.ahead', '<', 'orgs.balance_micros')
              .$if(lockBalances, (query) => query.forNoKeyUpdate('orgs')),
          )
          .returning('id'),
    ),
    /** Settles the rows still in state `from_state`, with their usage and cost; returns the id of each row settled. */
    settleRows: new BatchTemplate(
      {
        id: 'text',
        from_state: 'text',
        input: 'bigint',
        output: 'bigint',
        cache_read: 'bigint',
        cache_write: 'bigint',
        searches: 'bigint',
        cost: 'bigint',
        status: 'bigint',
        ms: 'bigint',
      },
      (rows) =>
        db
          .updateTable('usage')
          .from(rows.as('s'))
          .set((eb) => ({
            state: 'settled',
            input_tokens: eb.ref('s.input'),
            output_tokens: eb.ref('s.output'),
            cache_read_tokens: eb.ref('s.cache_read'),
            cache_write_tokens: eb.ref('s.cache_write'),
            searches: eb.ref('s.searches'),
            cost_micros: eb.ref('s.cost'),
            status: eb.ref('s.status'),
            duration_ms: eb.ref('s.ms'),
          }))
          .whereRef('usage.id', '=', 's.id')
          .whereRef('usage.state', '=', 's.from_state')
          .returning('usage.id'),
    ),
    /** Adds to organizations' balances and lifetime spends, one row per organization. */
    moveMoney: new BatchTemplate({ org: 'text', balance: 'bigint', spent: 'bigint' }, (moves) =>
      db
        .updateTable('orgs')
        .from(moves.as('m'))
        .set((eb) => ({
          balance_micros: eb('orgs.balance_micros', '+', eb.ref('m.balance')),
          spent_micros: eb('orgs.spent_micros', '+', eb.ref('m.spent')),
        }))
        .whereRef('orgs.id', '=', 'm.org'),
    ),
    /**
     * Adds settled costs to their keys' spend of the day their requests were admitted (the caps' spend,
     * store/caps.ts); one row per key and day, so no row is hit twice.
     */
    addKeySpend: new BatchTemplate({ key: 'text', day: 'bigint', org: 'text', amount: 'bigint' }, (rows) =>
      db
        .insertInto('key_spend_daily')
        .columns(['key_id', 'day', 'org_id', 'spent_micros'])
        .expression(
          // The WHERE also lets SQLite read the ON CONFLICT after a SELECT as the upsert's.
          db.selectFrom(rows.as('r')).select(['r.key', 'r.day', 'r.org', 'r.amount']).where('r.key', 'is not', null),
        )
        .onConflict((conflict) =>
          conflict.columns(['key_id', 'day']).doUpdateSet((eb) => ({
            spent_micros: eb('key_spend_daily.spent_micros', '+', eb.ref('excluded.spent_micros')),
          })),
        ),
    ),
    /** An organization's balance (a refused hold reports it). */
    balance: new QueryTemplate<{ org: string }>((arg) =>
      db.selectFrom('orgs').select('balance_micros').where('id', '=', arg('org')),
    ),
  };
}
