// Caps per key and per member (cap-rules.ts says what they are): set, cleared and read, each change
// with its audit entry; the caps that apply to one caller; and what a key or a member has used against
// them: the spend of the current day, week and month (settled costs from key_spend_daily, plus the holds
// of requests in flight) and the requests in flight. The meter runs the same use query inside its hold
// transaction (spendUseQueries), so what a caller reads is what admission decides on.
import { sql, type Kysely, type Transaction } from 'kysely';
import {
  CAP_NAMES,
  DAY_MS,
  MAX_RATE_CAP,
  periodOf,
  SPEND_PERIODS,
  type CallerCaps,
  type CapName,
  type Caps,
  type CapScope,
  type SpendPeriod,
} from './cap-rules.js';
import { writeAudit, type Actor } from './audit-log.js';
import { StoreError } from './errors.js';
import { isMicros } from './money.js';
import type { CapsTable, Database } from './schema.js';

/** The columns of each cap. */
const COLUMNS: Readonly<Record<CapName, keyof CapsTable>> = {
  dayMicros: 'day_micros',
  weekMicros: 'week_micros',
  monthMicros: 'month_micros',
  requestsPerMinute: 'requests_per_minute',
  inputTokensPerMinute: 'input_tokens_per_minute',
  outputTokensPerMinute: 'output_tokens_per_minute',
  concurrentRequests: 'concurrent_requests',
};

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

  constructor(db: Kysely<Database>) {
    this.#db = db;
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
        for (const name of set) Object.assign(row, { [COLUMNS[name]]: caps[name] });
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
    const queries = spendUseQueries(this.#db, orgId, scope, at);
    const [settled, held] = await Promise.all([queries.settled.execute(), queries.held.execute()]);
    return capUseOf(settled[0], held[0], at);
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

/** One row of settled spend per period (in micro-credits). */
export type SettledSpendRow = Record<SpendPeriod, number | string | null>;
/** The open holds per period, and how many there are. */
export type HeldRow = Record<SpendPeriod, number | string | null> & { in_flight: number | string };

/**
 * The two reads of a scope's use at `at`: the settled spend of each period (whole UTC days from
 * key_spend_daily) and its open holds (the partial index usage_held_key). A member's are its keys'.
 */
export function spendUseQueries(db: Kysely<Database>, orgId: string, scope: CapScope, at: number) {
  const starts = Object.fromEntries(SPEND_PERIODS.map((period) => [period, periodOf(period, at).start])) as Record<
    SpendPeriod,
    number
  >;
  const earliest = Math.min(...Object.values(starts));
  const memberKeys = (email: string) =>
    db.selectFrom('api_keys').select('id').where('org_id', '=', orgId).where('created_by', '=', email);
  const settled = db
    .selectFrom('key_spend_daily')
    .select(
      SPEND_PERIODS.map((period) =>
        sql<number | null>`sum(case when day >= ${starts[period] / DAY_MS} then spent_micros end)`.as(period),
      ),
    )
    .where((eb) =>
      scope.kind === 'key' ? eb('key_id', '=', scope.keyId) : eb('key_id', 'in', memberKeys(scope.email)),
    )
    .where('day', '>=', earliest / DAY_MS);
  const held = db
    .selectFrom('usage')
    .select([
      ...SPEND_PERIODS.map((period) =>
        sql<number | null>`sum(case when created_at >= ${starts[period]} then hold_micros end)`.as(period),
      ),
      sql<number>`count(*)`.as('in_flight'),
    ])
    .where((eb) =>
      scope.kind === 'key' ? eb('key_id', '=', scope.keyId) : eb('key_id', 'in', memberKeys(scope.email)),
    )
    .where('state', '=', 'held');
  return { settled, held };
}

/** A scope's use from its two reads. */
export function capUseOf(settled: SettledSpendRow | undefined, held: HeldRow | undefined, at: number): CapUse {
  const spentMicros = {} as Record<SpendPeriod, number>;
  const resetsAt = {} as Record<SpendPeriod, number>;
  for (const period of SPEND_PERIODS) {
    spentMicros[period] = Number(settled?.[period] ?? 0) + Number(held?.[period] ?? 0);
    resetsAt[period] = periodOf(period, at).end;
  }
  return { spentMicros, resetsAt, inFlight: Number(held?.in_flight ?? 0) };
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
    const value = row[COLUMNS[name]];
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
