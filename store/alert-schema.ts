// The alert tables as Kysely sees them (migration 0008-alerts). Kept beside schema.ts rather than in it:
// the store's parts that own these tables open them with `alertDb(db)`.
import type { ColumnType, Kysely } from 'kysely';
import type { Database } from './schema.js';

export type AlertScope = 'org' | 'key' | 'member';
export type AlertKind = 'balance_below' | 'cap_pct';
export type CapPeriod = 'day' | 'week' | 'month';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A threshold an organization watches (store/alert-rules.ts). */
export interface AlertRulesTable {
  id: string;
  org_id: string;
  scope: AlertScope;
  /** The key's id or the member's e-mail; null for the organization. */
  scope_id: string | null;
  kind: AlertKind;
  /** balance_below: integer micro-credits; cap_pct: a percentage, 1..100, of the scope's spend cap. */
  threshold: number;
  /** cap_pct: the cap's period; null for balance_below. */
  period: CapPeriod | null;
  /** balance_below: 1 while the balance has not gone below since it was last at or above the threshold. */
  armed: ColumnType<number, number | undefined, number>;
  /** balance_below: how many times it fired; the next crossing's name is `n<crossings>`. */
  crossings: ColumnType<number, number | undefined, number>;
  created_at: number;
}

/** One fired alert (the outbox): what every channel delivers; `id` is what receivers de-duplicate on. */
export interface AlertEventsTable {
  id: string;
  org_id: string;
  /** Null for a test event. */
  rule_id: string | null;
  /** Which crossing of the rule: `n<count>` (balance), `<period>:<start ms>` (cap), `test:<id>`. Unique per rule. */
  crossing: string;
  type: string;
  /** JSON text: the event's `data`. */
  payload: string;
  created_at: number;
}

export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  url: string;
  /** The signing secret, sealed with the server's webhook key (store/webhook-seal.ts). */
  sealed_secret: string;
  description: string;
  created_at: number;
  disabled_at: number | null;
}

/** One attempt to deliver one event to one endpoint (the delivery log). */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  /** 1 for the first attempt. */
  attempt: number;
  status: DeliveryStatus;
  /** The receiver's HTTP status, when it answered. */
  response_status: number | null;
  error: string | null;
  /** Unix ms: when the attempt is due. */
  next_attempt_at: number;
  /** Unix ms: a node sending it holds it until then (a lease), so no two nodes send one attempt. */
  claimed_until: number | null;
  created_at: number;
  finished_at: number | null;
}

// A type, not an interface: withTables wants a record type.
export type AlertTables = {
  alert_rules: AlertRulesTable;
  alert_events: AlertEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
};

export type AlertDatabase = Database & AlertTables;

/** The store's database with the alert tables. */
export function alertDb(db: Kysely<Database>): Kysely<AlertDatabase> {
  return db.withTables<AlertTables>();
}
