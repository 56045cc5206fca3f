// Money is whole micro-credits within the safe-integer range, enforced by the database itself (issue #11),
// and every credit added is recorded, so the balance invariant can be checked:
//   balance = Σ credit_grants − Σ settled cost − Σ open holds.
// On SQLite a column's type does not stop a REAL from being stored, so triggers refuse one (and any value
// outside ±(2^53 − 1)); on PostgreSQL the bigint type already refuses fractions and CHECK constraints
// bound the range. Rows written before this migration are repaired first (a fraction rounded, a value out
// of range zeroed), and each organization gets an opening grant that makes the invariant hold for the
// ledger it has.
import { sql, SqliteAdapter, type Kysely, type Migration, type RawBuilder } from 'kysely';

/** Number.MAX_SAFE_INTEGER: the largest money value the code can hold exactly as a number. */
const MAX_MICROS = '9007199254740991';

/** The money columns of each table, with the lowest value each may take. */
const MONEY_COLUMNS: Record<string, Record<string, string>> = {
  orgs: { balance_micros: `-${MAX_MICROS}`, spent_micros: '0' },
  usage: { cost_micros: '0', hold_micros: '0' },
  credit_grants: { amount_micros: `-${MAX_MICROS}` },
};

export const moneyIntegrity: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('credit_grants')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('amount_micros', 'bigint', (c) => c.notNull())
      .addColumn('note', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('credit_grants_org').on('credit_grants').column('org_id').execute();

    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    if (sqlite) await repairSqliteMoney(db);
    await openingGrants(db);
    for (const [table, columns] of Object.entries(MONEY_COLUMNS)) {
      if (sqlite) await sqliteMoneyTriggers(db, table, columns);
      else await checkConstraints(db, table, columns);
    }
  },

  async down(db: Kysely<unknown>): Promise<void> {
    const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
    for (const [table, columns] of Object.entries(MONEY_COLUMNS)) {
      if (table === 'credit_grants') continue;
      if (sqlite)
        for (const event of ['insert', 'update'])
          await sql`drop trigger if exists ${sql.raw(`${table}_money_${event}`)}`.execute(db);
      else
        for (const column of Object.keys(columns))
          await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.raw(`${table}_${column}_money`)}`.execute(
            db,
          );
    }
    await db.schema.dropTable('credit_grants').execute();
  },
};

/**
 * SQLite may hold REALs in the money columns (issue #11: a float hold rounded balances). A fraction is
 * rounded. A value out of range cannot be told from garbage (a 9.87e28 hold) and is set to zero: an open
 * hold of that kind is released, as it never reserved anything real.
 */
async function repairSqliteMoney(db: Kysely<unknown>): Promise<void> {
  const outOfRange = (column: string, low: string): RawBuilder<unknown> =>
    sql`(${sql.ref(column)} < ${sql.raw(low)} or ${sql.ref(column)} > ${sql.raw(MAX_MICROS)})`;
  await sql`update usage set state = 'released' where state = 'held' and ${outOfRange('hold_micros', '0')}`.execute(db);
  for (const [table, columns] of Object.entries(MONEY_COLUMNS)) {
    if (table === 'credit_grants') continue;
    for (const [column, low] of Object.entries(columns)) {
      const ref = sql.ref(column);
      await sql`update ${sql.table(table)} set ${ref} = case when ${outOfRange(column, low)} then 0 else cast(round(${ref}) as integer) end
        where typeof(${ref}) != 'integer' or ${outOfRange(column, low)}`.execute(db);
    }
  }
}

/** One grant per organization that needs one: what it must have been given for its balance, settled costs and open holds to add up. */
async function openingGrants(db: Kysely<unknown>): Promise<void> {
  const settled = sql`coalesce((select sum(u.cost_micros) from usage u where u.org_id = o.id and u.state = 'settled'), 0)`;
  const held = sql`coalesce((select sum(u.hold_micros) from usage u where u.org_id = o.id and u.state = 'held'), 0)`;
  await sql`insert into credit_grants (id, org_id, amount_micros, note, created_at)
    select 'grant_opening_' || o.id, o.id, o.balance_micros + ${settled} + ${held}, 'opening balance (migration 0003)', o.created_at
    from orgs o where o.balance_micros + ${settled} + ${held} != 0`.execute(db);
}

async function sqliteMoneyTriggers(db: Kysely<unknown>, table: string, columns: Record<string, string>): Promise<void> {
  const bad = Object.entries(columns)
    .map(
      ([column, low]) =>
        `typeof(new.${column}) != 'integer' or new.${column} < ${low} or new.${column} > ${MAX_MICROS}`,
    )
    .join(' or ');
  const message = `${table}: money must be whole micro-credits within the safe-integer range`;
  for (const event of ['insert', 'update']) {
    await raw(
      `create trigger ${table}_money_${event} before ${event} on ${table} when ${bad} begin select raise(abort, '${message}'); end`,
    ).execute(db);
  }
}

async function checkConstraints(db: Kysely<unknown>, table: string, columns: Record<string, string>): Promise<void> {
  for (const [column, low] of Object.entries(columns)) {
    await raw(
      `alter table ${table} add constraint ${table}_${column}_money check (${column} between ${low} and ${MAX_MICROS})`,
    ).execute(db);
  }
}

function raw(text: string): RawBuilder<unknown> {
  return sql.raw(text);
}
