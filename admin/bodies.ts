// The JSON shapes of organizations, tiers, members, keys and audit entries, as the admin API and the
// console answer them: snake_case, money as credits text and as integer micro-credits, times in ISO 8601.
import type { Tier } from '../limits/tiers.js';
import type { AuditEntry } from '../store/audit-log.js';
import { formatCredits } from '../store/credits.js';
import type { ApiKeyRecord } from '../store/keys.js';
import type { Member, Org } from '../store/orgs.js';
import type { Payment } from '../store/payments.js';

export function orgJson(org: Org, tier: Tier, members?: readonly Member[]) {
  return {
    id: org.id,
    name: org.name,
    balance: formatCredits(org.balanceMicros),
    balance_micros: org.balanceMicros,
    spent: formatCredits(org.spentMicros),
    spent_micros: org.spentMicros,
    tier: tierBody(tier),
    created_at: org.createdAt.toISOString(),
    ...(members !== undefined ? { members: members.map(memberBody) } : {}),
  };
}

export function tierBody(tier: Tier) {
  return {
    name: tier.name,
    requests_per_minute: tier.requestsPerMinute,
    input_tokens_per_minute: tier.inputTokensPerMinute,
    output_tokens_per_minute: tier.outputTokensPerMinute,
  };
}

export function memberBody(member: Member) {
  return { email: member.email, role: member.role, created_at: member.createdAt.toISOString() };
}

export function auditBody(entry: AuditEntry) {
  return {
    id: entry.id,
    action: entry.action,
    actor: entry.actor,
    address: entry.address,
    subject: entry.subject,
    detail: entry.detail,
    created_at: entry.createdAt.toISOString(),
  };
}

export function keyBody(key: ApiKeyRecord) {
  return {
    id: key.id,
    org_id: key.orgId,
    name: key.name,
    last4: key.last4,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    status: key.status,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    created_by: key.createdBy,
  };
}

export function paymentBody(payment: Payment) {
  return {
    id: payment.id,
    org_id: payment.orgId,
    status: payment.status,
    amount: formatCredits(payment.amountMicros),
    amount_micros: payment.amountMicros,
    amount_cents: payment.amountCents,
    currency: payment.currency,
    checkout_session_id: payment.checkoutSessionId,
    created_by: payment.createdBy,
    created_at: payment.createdAt.toISOString(),
    completed_at: payment.completedAt?.toISOString() ?? null,
  };
}
