// Whether a request's end crossed one of its organization's thresholds: the balance below a rule's
// threshold (a crossing: the rule was armed, i.e. the balance had been at or above it since it last
// fired), or a key's or a member's spend at a rule's percentage of its cap in the current period (once
// per period). Checks are coalesced per organization: one in flight, and one more after it when
// requests ended meanwhile, so a burst of requests costs two checks, not one each; nothing is read per
// chunk. A check never throws into the request: its failures are logged.
import type { Logger } from 'pino';
import { periodOf, SPEND_CAP, type CapScope } from '../../store/cap-rules.js';
import type { AlertEvent } from '../../store/alert-events.js';
import type { AlertRule } from '../../store/alert-rules.js';
import type { AlertStore } from '../../store/alert-store.js';
import type { CapStore } from '../../store/caps.js';
import type { Orgs } from '../../store/orgs.js';

export interface AlertCheckParts {
  alerts: AlertStore;
  orgs: Orgs;
  caps: CapStore;
  /** Tells the organization's admins of an event this node fired (e-mail); `log` is the request's. */
  fired(event: AlertEvent, log: Logger): void;
  now: () => number;
}

export class AlertCheck {
  readonly #parts: AlertCheckParts;
  readonly #running = new Map<string, Promise<void>>();
  /** The keys whose requests ended since their organization's check started: checked once more after it. */
  readonly #pending = new Map<string, Set<string>>();

  constructor(parts: AlertCheckParts) {
    this.#parts = parts;
  }

  /** A request of the organization (by this key) ended, its settlement written: returns at once. */
  requestEnded(orgId: string, keyId: string, log: Logger): void {
    const pending = this.#pending.get(orgId);
    if (pending === undefined) this.#pending.set(orgId, new Set([keyId]));
    else pending.add(keyId);
    if (this.#running.has(orgId)) return;
    this.#running.set(orgId, this.#run(orgId, log));
  }

  /** Checks until no request of the organization ended meanwhile; then (synchronously, so no request is missed) stops. */
  async #run(orgId: string, log: Logger): Promise<void> {
    try {
      for (let keys = this.#take(orgId); keys !== undefined; keys = this.#take(orgId))
        await this.#check(orgId, keys, log);
    } catch (error) {
      log.warn({ org: orgId, err: (error as Error).message }, 'alerts: the threshold check failed');
    } finally {
      this.#running.delete(orgId);
    }
  }

  #take(orgId: string): Set<string> | undefined {
    const keys = this.#pending.get(orgId);
    this.#pending.delete(orgId);
    return keys;
  }

  /** Resolves when the checks under way are over (a closing node; tests). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  async #check(orgId: string, keys: Set<string>, log: Logger): Promise<void> {
    const rules = await this.#parts.alerts.rules.list(orgId);
    if (rules.length === 0) return;
    const balanceRules = rules.filter((rule) => rule.kind === 'balance_below');
    if (balanceRules.length > 0) await this.#checkBalance(orgId, balanceRules, log);
    for (const rule of rules)
      if (rule.kind === 'cap_pct' && (rule.scope === 'member' || keys.has(rule.scopeId ?? '')))
        await this.#checkCap(rule, log);
  }

  async #checkBalance(orgId: string, rules: AlertRule[], log: Logger): Promise<void> {
    const org = await this.#parts.orgs.find(orgId);
    if (org === undefined) return;
    for (const rule of rules) {
      if (org.balanceMicros >= rule.threshold || !rule.armed) continue;
      const event = await this.#parts.alerts.events.fireBalanceRule(rule.id, {
        orgId,
        type: 'balance.below',
        data: { rule_id: rule.id, threshold_micros: rule.threshold, balance_micros: org.balanceMicros },
      });
      if (event !== undefined) this.#parts.fired(event, log);
    }
  }

  async #checkCap(rule: AlertRule, log: Logger): Promise<void> {
    if (rule.period === null || rule.scopeId === null) return;
    const scope: CapScope =
      rule.scope === 'key' ? { kind: 'key', keyId: rule.scopeId } : { kind: 'member', email: rule.scopeId };
    const cap = (await this.#parts.caps.get(rule.orgId, scope))?.caps[SPEND_CAP[rule.period]];
    if (cap === undefined || cap <= 0) return;
    const now = this.#parts.now();
    const spent = (await this.#parts.caps.use(rule.orgId, scope, now)).spentMicros[rule.period];
    // Compared in integers: spent / cap >= threshold / 100.
    if (BigInt(spent) * 100n < BigInt(rule.threshold) * BigInt(cap)) return;
    const period = periodOf(rule.period, now);
    const event = await this.#parts.alerts.events.fireOnce({
      orgId: rule.orgId,
      ruleId: rule.id,
      crossing: `${rule.period}:${period.start}`,
      type: 'cap.threshold',
      data: {
        rule_id: rule.id,
        scope: rule.scope,
        scope_id: rule.scopeId,
        period: rule.period,
        period_start: new Date(period.start).toISOString(),
        period_end: new Date(period.end).toISOString(),
        threshold_pct: rule.threshold,
        cap_micros: cap,
        spent_micros: spent,
      },
    });
    if (event !== undefined) this.#parts.fired(event, log);
  }
}
