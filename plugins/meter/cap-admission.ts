// The spend and concurrency caps of keys and members (store/cap-rules.ts), decided inside the meter's hold
// transaction like the balance: a hold is refused when its scope's spend in a period, counting the holds
// of the requests in flight and of the batch before it, plus this hold, would pass the period's cap; or
// when the scope already has as many requests in flight as its concurrency cap. What a scope has used is
// read in the same transaction (store/caps.ts), under the lock its organization's row holds on
// PostgreSQL (every write of holds, settlements and spend takes it first) and the write lock of SQLite,
// so concurrent admissions on any node cannot both take the last of a cap. Holds whose callers have no
// cap cost no read.
import type { Kysely } from 'kysely';
import { periodOf, SPEND_CAP, SPEND_PERIODS, type Caps, type CapScope } from '../../store/cap-rules.js';
import { CapUseStatement, capUseOf, type CapUse, type CapUseRow } from '../../store/caps.js';
import type { Database } from '../../store/schema.js';
import type { SqlRunner } from '../../store/transactor.js';
import { checkedSum } from './money-moves.js';

/** A cap the hold must fit: whose it is, and its values. */
export interface HoldCap {
  scope: CapScope;
  caps: Caps;
}

/** The cap a hold did not fit. */
export interface CapRefusal {
  scope: CapScope;
  cap: 'dayMicros' | 'weekMicros' | 'monthMicros' | 'concurrentRequests';
  limit: number;
  /** The scope's spend of the period (settled and held), or its requests in flight. */
  used: number;
  /** What this request would add: its hold, or one request. */
  needed: number;
  /** When the period ends (Unix ms); undefined for the concurrency cap, which frees as requests end. */
  resetAt: number | undefined;
}

/** What admission needs of a hold. */
export interface CappedHold {
  orgId: string;
  keyId: string;
  /** The member who made the key, if a member did. */
  member?: string;
  holdMicros: number;
  createdAt: number;
  caps?: readonly HoldCap[];
}

/** What the holds of the batch before a hold reserve in a scope. */
interface Ahead {
  micros: number;
  requests: number;
}

export class CapAdmission {
  readonly #useStatement: CapUseStatement;

  constructor(db: Kysely<Database>) {
    this.#useStatement = new CapUseStatement(db);
  }

  /**
   * Per hold, in order, the cap it does not fit, or undefined. Every hold before one in the batch counts
   * as taken (a later refusal by the balance only makes this conservative).
   */
  async refusals(sql: SqlRunner, holds: readonly CappedHold[]): Promise<Array<CapRefusal | undefined>> {
    if (!holds.some((hold) => hold.caps !== undefined && hold.caps.length > 0)) return holds.map(() => undefined);
    const uses = new Map<string, CapUse>();
    const ahead = new Map<string, Ahead>();
    const refusals: Array<CapRefusal | undefined> = [];
    for (const hold of holds) {
      let refusal: CapRefusal | undefined;
      for (const { scope, caps } of hold.caps ?? []) {
        const at = hold.createdAt;
        const useKey = `${scopeKey(hold.orgId, scope)}@${periodOf('day', at).start}`;
        let use = uses.get(useKey);
        if (use === undefined) uses.set(useKey, (use = await this.#use(sql, hold.orgId, scope, at)));
        refusal = refusalOf(scope, caps, use, ahead.get(scopeKey(hold.orgId, scope)), hold.holdMicros);
        if (refusal !== undefined) break;
      }
      refusals.push(refusal);
      if (refusal === undefined) for (const key of scopeKeysOf(hold)) addAhead(ahead, key, hold.holdMicros);
    }
    return refusals;
  }

  async #use(sql: SqlRunner, orgId: string, scope: CapScope, at: number): Promise<CapUse> {
    const { rows } = await sql.run<CapUseRow>(this.#useStatement.bind(orgId, scope, at));
    return capUseOf(rows[0], at);
  }
}

/** The first cap of `caps` that one more request of `holdMicros` does not fit, if any. */
function refusalOf(
  scope: CapScope,
  caps: Caps,
  use: CapUse,
  ahead: Ahead | undefined,
  holdMicros: number,
): CapRefusal | undefined {
  for (const period of SPEND_PERIODS) {
    const cap = SPEND_CAP[period];
    const limit = caps[cap];
    if (limit === undefined) continue;
    const used = checkedSum(use.spentMicros[period] + (ahead?.micros ?? 0));
    if (used + holdMicros > limit)
      return { scope, cap, limit, used, needed: holdMicros, resetAt: use.resetsAt[period] };
  }
  const concurrent = caps.concurrentRequests;
  if (concurrent !== undefined) {
    const inFlight = use.inFlight + (ahead?.requests ?? 0);
    if (inFlight + 1 > concurrent)
      return { scope, cap: 'concurrentRequests', limit: concurrent, used: inFlight, needed: 1, resetAt: undefined };
  }
  return undefined;
}

/** The scopes a hold counts in: its key, and its member. */
function scopeKeysOf(hold: CappedHold): string[] {
  const keys = [scopeKey(hold.orgId, { kind: 'key', keyId: hold.keyId })];
  if (hold.member !== undefined) keys.push(scopeKey(hold.orgId, { kind: 'member', email: hold.member }));
  return keys;
}

function scopeKey(orgId: string, scope: CapScope): string {
  return scope.kind === 'key' ? `key:${scope.keyId}` : `member:${orgId}/${scope.email}`;
}

function addAhead(ahead: Map<string, Ahead>, key: string, micros: number): void {
  const entry = ahead.get(key);
  if (entry === undefined) ahead.set(key, { micros, requests: 1 });
  else {
    entry.micros = checkedSum(entry.micros + micros);
    entry.requests++;
  }
}
