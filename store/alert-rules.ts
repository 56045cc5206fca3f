// An organization's alert rules: a balance below N micro-credits, or a percentage of a key's or a
// member's spend cap in its day, week or month. The store checks what a rule names (the key and the
// member are the organization's, the numbers in range) and says which field a refusal is about.
import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import type { AlertDatabase, AlertKind, AlertRulesTable, AlertScope, CapPeriod } from './alert-schema.js';
import { StoreError } from './errors.js';
import { newId } from './ids.js';
import { QueryTemplate } from './query-template.js';
import { MAX_MICROS } from './money.js';

export interface AlertRule {
  id: string;
  orgId: string;
  scope: AlertScope;
  /** The key's id or the member's e-mail; null for the organization. */
  scopeId: string | null;
  kind: AlertKind;
  /** balance_below: micro-credits; cap_pct: percent of the cap. */
  threshold: number;
  period: CapPeriod | null;
  /** balance_below: the balance has not gone below since it was last at or above the threshold. */
  armed: boolean;
  createdAt: number;
}

export type NewAlertRule = Pick<AlertRule, 'scope' | 'scopeId' | 'kind' | 'threshold' | 'period'>;

/** A refusal naming the request field it is about (the APIs answer 400 with it). */
export class AlertFieldError extends StoreError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('GW_ERR_STORE_INVALID', message);
  }
}

export const SCOPES: readonly AlertScope[] = ['org', 'key', 'member'];
export const KINDS: readonly AlertKind[] = ['balance_below', 'cap_pct'];
export const PERIODS: readonly CapPeriod[] = ['day', 'week', 'month'];

export class AlertRules {
  /** Read after each request of an organization (plugins/alerts): compiled once (store/query-template.ts). */
  readonly #listQuery: QueryTemplate<{ orgId: string }>;

  constructor(
    private readonly db: Kysely<AlertDatabase>,
    private readonly now: () => number = Date.now,
  ) {
    this.#listQuery = new QueryTemplate((arg) =>
      db.selectFrom('alert_rules').selectAll().where('org_id', '=', arg('orgId')).orderBy('created_at').orderBy('id'),
    );
  }

  async create(orgId: string, rule: NewAlertRule): Promise<AlertRule> {
    await this.#check(orgId, rule);
    const row: Selectable<AlertRulesTable> = {
      id: newId('rule'),
      org_id: orgId,
      scope: rule.scope,
      scope_id:
        rule.scope === 'org'
          ? null
          : rule.scope === 'member'
            ? (rule.scopeId ?? '').trim().toLowerCase()
            : rule.scopeId,
      kind: rule.kind,
      threshold: rule.threshold,
      period: rule.kind === 'cap_pct' ? rule.period : null,
      armed: 1,
      crossings: 0,
      created_at: this.now(),
    };
    await this.db.insertInto('alert_rules').values(row).execute();
    return toRule(row);
  }

  async list(orgId: string): Promise<AlertRule[]> {
    const bound = this.#listQuery.with({ orgId });
    const { rows } = await this.db.executeQuery<Selectable<AlertRulesTable>>(
      CompiledQuery.raw(bound.sql, [...bound.parameters]),
    );
    return rows.map(toRule);
  }

  /** The organization's rule, or undefined (another organization's rule is not found either). */
  async find(orgId: string, id: string): Promise<AlertRule | undefined> {
    const row = await this.db
      .selectFrom('alert_rules')
      .selectAll()
      .where('id', '=', id)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return row && toRule(row);
  }

  /** Deletes the organization's rule; false when it has none of that id. */
  async delete(orgId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('alert_rules').where('id', '=', id).where('org_id', '=', orgId).execute();
    return Number(result[0]?.numDeletedRows ?? 0) > 0;
  }

  /**
   * Re-arms every balance rule whose organization's balance is back at or above its threshold (a top-up);
   * how many were re-armed.
   */
  async rearmRecovered(): Promise<number> {
    const result = await this.db
      .updateTable('alert_rules')
      .set({ armed: 1 })
      .where('kind', '=', 'balance_below')
      .where('armed', '=', 0)
      .where('threshold', '<=', sql<number>`(select balance_micros from orgs where orgs.id = alert_rules.org_id)`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async #check(orgId: string, rule: NewAlertRule): Promise<void> {
    if (!SCOPES.includes(rule.scope)) throw new AlertFieldError('scope', `'scope' must be one of ${SCOPES.join(', ')}`);
    if (!KINDS.includes(rule.kind)) throw new AlertFieldError('kind', `'kind' must be one of ${KINDS.join(', ')}`);
    if (rule.kind === 'balance_below') {
      if (rule.scope !== 'org')
        throw new AlertFieldError(
          'scope',
          "a balance_below rule watches the organization's balance: 'scope' must be org",
        );
      if (!Number.isSafeInteger(rule.threshold) || rule.threshold < 1 || rule.threshold > MAX_MICROS)
        throw new AlertFieldError(
          'threshold_micros',
          `'threshold_micros' must be a whole number of micro-credits from 1 to ${MAX_MICROS}`,
        );
    } else {
      if (rule.scope === 'org')
        throw new AlertFieldError(
          'scope',
          "a cap_pct rule watches a key's or a member's cap: 'scope' must be key or member",
        );
      if (!Number.isInteger(rule.threshold) || rule.threshold < 1 || rule.threshold > 100)
        throw new AlertFieldError('threshold_pct', "'threshold_pct' must be a whole number from 1 to 100");
      if (rule.period === null || !PERIODS.includes(rule.period))
        throw new AlertFieldError('period', `'period' must be one of ${PERIODS.join(', ')}`);
    }
    if (rule.scope === 'key') await this.#checkKey(orgId, rule.scopeId);
    if (rule.scope === 'member') await this.#checkMember(orgId, rule.scopeId);
  }

  async #checkKey(orgId: string, keyId: string | null): Promise<void> {
    const key =
      keyId === null
        ? undefined
        : await this.db
            .selectFrom('api_keys')
            .select('id')
            .where('id', '=', keyId)
            .where('org_id', '=', orgId)
            .executeTakeFirst();
    if (key === undefined) throw new AlertFieldError('scope_id', `'scope_id' names no key of this organization`);
  }

  async #checkMember(orgId: string, email: string | null): Promise<void> {
    const member =
      email === null
        ? undefined
        : await this.db
            .selectFrom('members')
            .select('email')
            .where('org_id', '=', orgId)
            .where('email', '=', email.trim().toLowerCase())
            .executeTakeFirst();
    if (member === undefined) throw new AlertFieldError('scope_id', `'scope_id' names no member of this organization`);
  }
}

function toRule(row: Selectable<AlertRulesTable>): AlertRule {
  return {
    id: row.id,
    orgId: row.org_id,
    scope: row.scope,
    scopeId: row.scope_id,
    kind: row.kind,
    threshold: Number(row.threshold),
    period: row.period,
    armed: Number(row.armed) === 1,
    createdAt: Number(row.created_at),
  };
}
