// Caps per key and per member (cap-rules.ts says what they are): set, cleared and read, each change
// with its audit entry; the caps that apply to one caller; and what a key or a member has used against
// them: the spend of the current day, week and month (settled costs from key_spend_daily, plus the holds
// of requests in flight) and the requests in flight. The meter runs the same use query inside its hold
// transaction (CapUseStatement), so what a caller reads is what admission decides on.
import { CompiledQuery, sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import {
  CAP_FIELDS,
  CAP_NAMES,
  DAY_MS,
  MAX_RATE_CAP,
  periodOf,
  SPEND_PERIODS,
  type CallerCaps,
  type Caps,
  type CapScope,
  type SpendPeriod,
} from './cap-rules.js';
import { writeAudit, type Actor } from './audit-log.js';
import { StoreError } from './errors.js';
import { isMicros } from './money.js';
import { QueryTemplate, type BoundQuery } from './query-template.js';
import type { CapsTable, Database } from './schema.js';

/** One scope's caps as stored. */
export interface CapsRecord {
  orgId: string;
  scope: CapScope;
  caps: Caps;
  updatedBy: string;
  updatedAt: Date;
}

/** What a scope has used against its caps, at one moment. */
export interface CapUse {
  /** Per period: the settled cost of its requests admitted in the period, plus the holds of those in flight. */
  spentMicros: Record<SpendPeriod, number>;
  /** When each period ends (Unix ms): its spend cap starts again from zero then. */
  resetsAt: Record<SpendPeriod, number>;
  /** Requests in flight (their holds are open). */
  inFlight: number;
}

export class CapStore {
  readonly #db: Kysely<Database>;
  readonly #useStatement: CapUseStatement;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#useStatement = new CapUseStatement(db);
  }

  /**
   * Sets a key's or a member's caps (replacing what was set; no cap at all clears them), with an audit
   * entry. The key must be the organization's, the member one of its members.
   */
  async set(orgId: string, scope: CapScope, caps: Caps, actor: Actor): Promise<CapsRecord | undefined> {
    checkCaps(caps);
    const scopeId = scopeIdOf(scope);
    const now = Date.now();
    await this.#db.transaction().execute(async (trx) => {
      await requireScope(trx, orgId, scope);
      await trx
        .deleteFrom('caps')
        .where('org_id', '=', orgId)
        .where('scope', '=', scope.kind)
        .where('scope_id', '=', scopeId)
        .execute();
      const set = CAP_NAMES.filter((name) => caps[name] !== undefined);
      if (set.length > 0) {
        const row: CapsTable = {
          org_id: orgId,
          scope: scope.kind,
          scope_id: scopeId,
          day_micros: null,
          week_micros: null,
          month_micros: null,
          requests_per_minute: null,
          input_tokens_per_minute: null,
          output_tokens_per_minute: null,
          concurrent_requests: null,
          updated_by: actor.who,
          updated_at: now,
        };
        for (const name of set) Object.assign(row, { [CAP_FIELDS[name]]: caps[name] });
        await trx.insertInto('caps').values(row).execute();
      }
      await writeAudit(trx, {
        orgId,
        action: set.length > 0 ? 'caps.set' : 'caps.cleared',
        actor,
        subject: scopeId,
        detail: { scope: scope.kind, ...Object.fromEntries(set.map((name) => [name, caps[name]])) },
      });
    });
    return this.get(orgId, scope);
  }

  /** A scope's caps, or undefined when none is set. */
  async get(orgId: string, scope: CapScope): Promise<CapsRecord | undefined> {
    const row = await this.#db
      .selectFrom('caps')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('scope', '=', scope.kind)
      .where('scope_id', '=', scopeIdOf(scope))
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Every cap set in the organization, keys first, then members. */
  async list(orgId: string): Promise<CapsRecord[]> {
    const rows = await this.#db
      .selectFrom('caps')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('scope')
      .orderBy('scope_id')
      .execute();
    return rows.map(toRecord);
  }

  /** The caps that apply to a key: its own, and its member's when a member (`createdBy`, an e-mail) made it. */
  async ofKey(orgId: string, keyId: string, createdBy: string | null): Promise<CallerCaps> {
    const member = memberOf(createdBy);
    const rows = await this.#db
      .selectFrom('caps')
      .selectAll()
      .where('org_id', '=', orgId)
      .where((eb) =>
        eb.or([
          eb.and([eb('scope', '=', 'key'), eb('scope_id', '=', keyId)]),
          ...(member === undefined ? [] : [eb.and([eb('scope', '=', 'member'), eb('scope_id', '=', member)])]),
        ]),
      )
      .execute();
    const callerCaps: CallerCaps = {};
    for (const row of rows) {
      if (row.scope === 'key') callerCaps.key = capsOf(row);
      else callerCaps.member = { email: row.scope_id, caps: capsOf(row) };
    }
    return callerCaps;
  }

  /** What a scope has used, now (`at`, Unix ms). */
  async use(orgId: string, scope: CapScope, at: number = Date.now()): Promise<CapUse> {
    const bound = this.#useStatement.bind(orgId, scope, at);
    const result = await this.#db.executeQuery<CapUseRow>(CompiledQuery.raw(bound.sql, [...bound.parameters]));
    return capUseOf(result.rows[0], at);
  }
}

/** The member who made a key: its `created_by` when that is an e-mail (else the operator, the CLI, the system). */
export function memberOf(createdBy: string | null): string | undefined {
  return createdBy !== null && createdBy.includes('@') ? createdBy : undefined;
}

/** The stored id of a scope: the key's id, or the member's e-mail. */
function scopeIdOf(scope: CapScope): string {
  return scope.kind === 'key' ? scope.keyId : scope.email;
}

/** The arguments of a scope's use statement: the scope, and the starts of its periods (UTC days and Unix ms). */
type UseArgs = {
  org: string;
  /** The key's id, or the member's e-mail. */
  scope: string;
  earliestDay: number;
  dayStartDay: number;
  weekStartDay: number;
  monthStartDay: number;
  dayStart: number;
  weekStart: number;
  monthStart: number;
};

/** A scope's use in one row: settled spend and open holds per period, and the requests in flight. */
export type CapUseRow = Record<`${'settled' | 'held'}_${SpendPeriod}` | 'in_flight', number | string | null>;

/**
 * The statement that reads a scope's use, compiled once per kind of scope (QueryTemplate): the settled
 * spend of each period from whole UTC days of key_spend_daily, and the open holds from the partial
 * index usage_held_key, in one row. A member's use is that of the keys it made in the organization.
 */
export class CapUseStatement {
  readonly #templates: Readonly<Record<CapScope['kind'], QueryTemplate<UseArgs>>>;

  constructor(db: Kysely<Database>) {
    const build = (kind: CapScope['kind']) =>
      new QueryTemplate<UseArgs>((arg) => {
        const keys = (eb: ExpressionBuilder<Database, 'key_spend_daily' | 'usage'>) =>
          kind === 'key'
            ? eb('key_id', '=', arg('scope'))
            : eb(
                'key_id',
                'in',
                db
                  .selectFrom('api_keys')
                  .select('id')
                  .where('org_id', '=', arg('org'))
                  .where('created_by', '=', arg('scope')),
              );
        const settled = db
          .selectFrom('key_spend_daily')
          .select([
            sql<number | null>`sum(case when day >= ${arg('dayStartDay')} then spent_micros end)`.as('day'),
            sql<number | null>`sum(case when day >= ${arg('weekStartDay')} then spent_micros end)`.as('week'),
            sql<number | null>`sum(case when day >= ${arg('monthStartDay')} then spent_micros end)`.as('month'),
          ])
          .where(keys)
          .where('day', '>=', arg('earliestDay'));
        const held = db
          .selectFrom('usage')
          .select([
            sql<number | null>`sum(case when created_at >= ${arg('dayStart')} then hold_micros end)`.as('day'),
            sql<number | null>`sum(case when created_at >= ${arg('weekStart')} then hold_micros end)`.as('week'),
            sql<number | null>`sum(case when created_at >= ${arg('monthStart')} then hold_micros end)`.as('month'),
            sql<number>`count(*)`.as('in_flight'),
          ])
          .where(keys)
          // A literal, not a parameter: only then may SQLite read the partial index usage_held_key.
          .where('state', '=', sql.lit('held'));
        return db
          .selectFrom([settled.as('s'), held.as('h')])
          .select([
            's.day as settled_day',
            's.week as settled_week',
            's.month as settled_month',
            'h.day as held_day',
            'h.week as held_week',
            'h.month as held_month',
            'h.in_flight',
          ]);
      });
    this.#templates = { key: build('key'), member: build('member') };
  }

  /** The statement for a scope at `at` (Unix ms). */
  bind(orgId: string, scope: CapScope, at: number): BoundQuery {
    const day = periodOf('day', at).start;
    const week = periodOf('week', at).start;
    const month = periodOf('month', at).start;
    return this.#templates[scope.kind].with({
      org: orgId,
      scope: scopeIdOf(scope),
      earliestDay: Math.min(week, month) / DAY_MS,
      dayStartDay: day / DAY_MS,
      weekStartDay: week / DAY_MS,
      monthStartDay: month / DAY_MS,
      dayStart: day,
      weekStart: week,
      monthStart: month,
    });
  }
}

/** A scope's use at `at` from its row. */
export function capUseOf(row: CapUseRow | undefined, at: number): CapUse {
  const spentMicros = {} as Record<SpendPeriod, number>;
  const resetsAt = {} as Record<SpendPeriod, number>;
  for (const period of SPEND_PERIODS) {
    spentMicros[period] = Number(row?.[`settled_${period}`] ?? 0) + Number(row?.[`held_${period}`] ?? 0);
    resetsAt[period] = periodOf(period, at).end;
  }
  return { spentMicros, resetsAt, inFlight: Number(row?.in_flight ?? 0) };
}

/** Refuses a cap that is not a whole number from zero to its maximum, naming it. */
function checkCaps(caps: Caps): void {
  for (const name of CAP_NAMES) {
    const value = caps[name];
    if (value === undefined) continue;
    const spend = name.endsWith('Micros');
    const max = spend ? Number.MAX_SAFE_INTEGER : MAX_RATE_CAP;
    if (!Number.isInteger(value) || value < 0 || value > max || (spend && !isMicros(value)))
      throw new StoreError('GW_ERR_STORE_INVALID', `${name} must be a whole number from 0 to ${max}, not ${value}`);
  }
}

/** The key must be the organization's; the member must be one of its members. */
async function requireScope(trx: Transaction<Database>, orgId: string, scope: CapScope): Promise<void> {
  if (scope.kind === 'key') {
    const key = await trx
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', scope.keyId)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    if (key === undefined)
      throw new StoreError('GW_ERR_STORE_KEY_NOT_FOUND', `no key ${scope.keyId} in this organization`);
  } else {
    const member = await trx
      .selectFrom('members')
      .select('email')
      .where('org_id', '=', orgId)
      .where('email', '=', scope.email)
      .executeTakeFirst();
    if (member === undefined)
      throw new StoreError('GW_ERR_STORE_MEMBER_NOT_FOUND', `no member ${scope.email} in this organization`);
  }
}

function capsOf(row: CapsTable): Caps {
  const caps: Caps = {};
  for (const name of CAP_NAMES) {
    const value = row[CAP_FIELDS[name]];
    if (value !== null && value !== undefined) caps[name] = Number(value);
  }
  return caps;
}

function toRecord(row: CapsTable): CapsRecord {
  return {
    orgId: row.org_id,
    scope: row.scope === 'key' ? { kind: 'key', keyId: row.scope_id } : { kind: 'member', email: row.scope_id },
    caps: capsOf(row),
    updatedBy: row.updated_by,
    updatedAt: new Date(Number(row.updated_at)),
  };
}
