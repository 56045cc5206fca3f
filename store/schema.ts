// The database's tables as Kysely sees them. Names are snake_case, as in SQL; the store's API maps rows
// to camelCase records. Money is integer micro-credits (1 credit = $1 = 1,000,000), times are Unix
// milliseconds; both are `bigint` columns. SQLite hands them back as numbers; so does the PostgreSQL
// pool, which parses int8 and numeric per pool and refuses a value beyond 2^53 (postgres-database.ts).
import type { ColumnType, Insertable, Selectable } from 'kysely';

export type MemberRole = 'admin' | 'member';

export interface OrgsTable {
  id: string;
  name: string;
  balance_micros: ColumnType<number, number | undefined, number>;
  spent_micros: ColumnType<number, number | undefined, number>;
  created_at: number;
  /** The tier a request naming none is served at (store/org-service-tiers.ts); null: `default`. */
  service_tier_default: ColumnType<string | null, string | null | undefined, string | null>;
  /** The tiers beyond `default` the organization may ask for, comma-separated ('' none); null: every tier offered. */
  service_tiers_allowed: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MembersTable {
  org_id: string;
  email: string;
  role: MemberRole;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  /** SHA-256 of the full key string (UTF-8), lower-case hex. The key itself is never stored. */
  key_hash: string;
  last4: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Who made it: a member's e-mail (console), `operator` (admin API), `cli`; null before migration 0005. */
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One row per generation request, written by the meter plugin; `id` is the request id (`x-request-id`). */
export interface UsageTable {
  id: string;
  org_id: string;
  key_id: string;
  dialect: 'messages' | 'chat' | 'responses';
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  searches: number;
  cost_micros: number;
  /** The HTTP status the client got. */
  status: number;
  duration_ms: number;
  created_at: number;
  /** 'held' while the request runs (its reservation taken from the balance), then 'settled', or 'released' (an orphaned hold refunded). */
  state: ColumnType<UsageState, UsageState | undefined, UsageState>;
  /** The reservation taken at admission, integer micro-credits (given back at settlement). */
  hold_micros: ColumnType<number, number | undefined, number>;
  /** The gateway node that metered the request (its lease, `nodes`); null before migration 0004. */
  node_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The model the request named; null before migration 0006. */
  model: ColumnType<string | null, string | null | undefined, string | null>;
  /** The batch whose line the request was (billed at the batch price); null for a live request. */
  batch_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The service tier the request was served at (docs/service-tiers.md); null for a batch line or before migration 0010. */
  service_tier: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * A key's or a member's caps (store/caps.ts), set by the organization's admins or the operator. A null
 * column is no cap. Spend caps are integer micro-credits per UTC day, week (from Monday) and month.
 */
export interface CapsTable {
  org_id: string;
  scope: 'key' | 'member';
  /** The key's id, or the member's e-mail. */
  scope_id: string;
  day_micros: number | null;
  week_micros: number | null;
  month_micros: number | null;
  requests_per_minute: number | null;
  input_tokens_per_minute: number | null;
  output_tokens_per_minute: number | null;
  concurrent_requests: number | null;
  /** A member's e-mail, `operator` or `cli`. */
  updated_by: string;
  updated_at: number;
}

/** What a key's settled requests cost, per UTC day (the day its request was admitted); the meter adds to it. */
export interface KeySpendDailyTable {
  key_id: string;
  /** floor(Unix ms / 86,400,000). */
  day: number;
  org_id: string;
  spent_micros: number;
}

/** A running gateway node (store/node-lease.ts): its row lives while it heartbeats. */
export interface NodesTable {
  id: string;
  host: string;
  pid: number;
  /** Unix ms. */
  started_at: number;
  /** Unix ms, by the node's clock: the lease runs until heartbeat_at + the lease. */
  heartbeat_at: number;
}

export type UsageState = 'held' | 'settled' | 'released';

/** Credits added to an organization, one row per addition (the balance invariant's first term). */
export interface CreditGrantsTable {
  id: string;
  org_id: string;
  /** Integer micro-credits; positive (an opening grant written by migration 0003 may be any value). */
  amount_micros: number;
  /** Why: e.g. 'admin api', 'cli', 'demo organization'. */
  note: string;
  created_at: number;
  /** The Stripe event that granted it (a paid Checkout Session); unique; null otherwise and before migration 0007. */
  stripe_event_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The Checkout Session it pays for; unique, so a payment is granted once. */
  checkout_session_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export type PaymentStatus = 'open' | 'complete' | 'expired';

/** A self-serve top-up: a Stripe Checkout Session a member opened (store/payments.ts). */
export interface PaymentsTable {
  /** `pay_…`, ours: in the session's metadata. */
  id: string;
  org_id: string;
  /** Stripe's `cs_…`, set once the session is made. */
  checkout_session_id: string | null;
  /** What the payment grants: amount_cents × 10,000. */
  amount_micros: number;
  /** What Stripe charges, in the currency's minor unit. */
  amount_cents: number;
  currency: string;
  status: PaymentStatus;
  /** The member who opened it (the receipt goes there). */
  created_by: string;
  created_at: number;
  completed_at: number | null;
  /** The event that completed it. */
  stripe_event_id: string | null;
  payment_intent: string | null;
}

/** A signed-in browser: the operator's dashboard or a member's console (store/web-sessions.ts). */
export interface WebSessionsTable {
  /** SHA-256 (hex) of the cookie's value: the store never holds a usable session id. */
  id_hash: string;
  kind: WebSessionKind;
  /** The member's e-mail (kind 'member'); null for the operator. */
  email: string | null;
  /** Echoed by the page in `x-csrf-token` on every change. */
  csrf_token: string;
  /** The client address that signed in. */
  address: string | null;
  created_at: number;
  expires_at: number;
}

export type WebSessionKind = 'operator' | 'member';

/** A one-time sign-in link sent by e-mail (store/sign-in-links.ts). */
export interface SignInLinksTable {
  /** SHA-256 (hex) of the token in the link: only the e-mail holds the token itself. */
  token_hash: string;
  email: string;
  created_at: number;
  expires_at: number;
  /** When it was used; a used link never works again. */
  used_at: number | null;
}

/** Every request for a sign-in link, known address or not: what the throttle counts (store/sign-in-requests.ts). */
export interface SignInRequestsTable {
  email: string;
  /** The client address that asked. */
  address: string;
  created_at: number;
}

/** An OpenID Connect sign-in between the redirect to the provider and its callback (store/oidc-logins.ts). */
export interface OidcLoginsTable {
  /** SHA-256 (hex) of the `state` parameter. */
  state_hash: string;
  /** The PKCE verifier whose challenge went to the provider. */
  code_verifier: string;
  nonce: string;
  created_at: number;
  expires_at: number;
}

/** Who did what to an organization (store/audit-log.ts). */
export interface AuditLogTable {
  id: string;
  org_id: string;
  action: AuditAction;
  /** A member's e-mail, `operator` (admin token or dashboard), or `cli`. */
  actor: string;
  /** The client address the change came from (none from the CLI). */
  address: string | null;
  /** What it was done to: a key id, a member's e-mail. */
  subject: string | null;
  /** JSON text: what else the entry says (a key's name, a role, an amount in micro-credits). */
  detail: string | null;
  created_at: number;
}

export type AuditAction =
  | 'org.created'
  | 'key.created'
  | 'key.revoked'
  | 'member.added'
  | 'member.removed'
  | 'member.role_changed'
  | 'credits.added'
  | 'caps.set'
  | 'caps.cleared'
  | 'service_tiers.set';

export interface Database {
  orgs: OrgsTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
  credit_grants: CreditGrantsTable;
  payments: PaymentsTable;
  nodes: NodesTable;
  web_sessions: WebSessionsTable;
  sign_in_links: SignInLinksTable;
  sign_in_requests: SignInRequestsTable;
  oidc_logins: OidcLoginsTable;
  audit_log: AuditLogTable;
  caps: CapsTable;
  key_spend_daily: KeySpendDailyTable;
}

export type OrgRow = Selectable<OrgsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewUsageRow = Insertable<UsageTable>;
