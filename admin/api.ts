// The admin API under /admin/v1: organizations, members, credits, keys and usage, as JSON. `:org` is an
// organization's id or name. The store checks what it owns (name lengths, e-mail shape, amounts); this
// file checks types and says which field a refusal is about.
import type { IncomingMessage } from 'node:http';
import type { Services } from '../services/services.js';
import { tierFor, type Tier } from '../limits/tiers.js';
import type { Actor } from '../store/audit-log.js';
import { parseCredits } from '../store/credits.js';
import type { Member, NewMember, Org } from '../store/orgs.js';
import type { MemberRole } from '../store/schema.js';
import { TIER_NAMES, type ExtraTierName, type OrgServiceTiers, type TierName } from '../store/org-service-tiers.js';
import { alertRoutes } from './alert-routes.js';
import { setOrgServiceTiers } from './service-tier-settings.js';
import { auditBody, keyBody, memberBody, orgJson, paymentBody } from './bodies.js';
import { capRoutes } from './cap-routes.js';
import { clientAddressOf } from './client-address.js';
import { about, AdminError } from './errors.js';
import { readObject } from './http.js';
import type { AdminRoute } from './routes.js';
import { exportRequestOf } from './usage-export/export-request.js';
import { usageExportAnswer } from './usage-export/usage-export.js';
import { usageByDay } from './usage.js';

const ROLES: readonly MemberRole[] = ['admin', 'member'];
const ORG = '([^/]+)';

/** The routes; `tiers` is the rate-limit tier table (config `limits.tiers`) an org's spend is placed in. */
export function apiRoutes(services: Services, tiers: readonly Tier[]): AdminRoute[] {
  const orgBody = (org: Org, members?: readonly Member[]) => orgJson(org, tierFor(org.spentMicros, tiers), members);
  const store = services.store;
  return [
    {
      method: 'GET',
      path: /^\/admin\/v1\/orgs$/,
      async handle() {
        const orgs = await (await store()).orgs.list();
        return { status: 200, body: { orgs: orgs.map((org) => orgBody(org)) } };
      },
    },
    {
      method: 'POST',
      path: /^\/admin\/v1\/orgs$/,
      async handle({ req }) {
        const body = await readObject(req);
        const name = stringField(body, 'name');
        const members = membersField(body.members);
        const s = await store();
        const org = await about('name', () => s.orgs.create(name, members, operator(req)));
        return { status: 201, body: orgBody(org, await s.orgs.members(org.id)) };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/admin/v1/orgs/${ORG}$`),
      async handle({ params: [org] }) {
        const s = await store();
        const found = await s.orgs.get(org!);
        return { status: 200, body: orgBody(found, await s.orgs.members(found.id)) };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/members$`),
      async handle({ req, params: [org] }) {
        const member = memberOf(await readObject(req), '');
        const s = await store();
        await about('email', () => s.orgs.addMember(org!, member, operator(req)));
        return { status: 200, body: { members: (await s.orgs.members(org!)).map(memberBody) } };
      },
    },
    {
      method: 'DELETE',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/members/([^/]+)$`),
      async handle({ req, params: [org, email] }) {
        const s = await store();
        await s.orgs.removeMember(org!, email!, operator(req));
        return { status: 200, body: { members: (await s.orgs.members(org!)).map(memberBody) } };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/credits$`),
      async handle({ req, params: [org] }) {
        const { amount } = await readObject(req);
        if (typeof amount !== 'string' && typeof amount !== 'number')
          throw new AdminError('invalid_request', '\'amount\' must be a number of credits, e.g. "12.5"', 'amount');
        const s = await store();
        const after = await about('amount', async () =>
          s.orgs.addCredits(org!, parseCredits(String(amount)), 'admin api', operator(req)),
        );
        return { status: 200, body: orgBody(after, await s.orgs.members(after.id)) };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/service-tiers$`),
      async handle({ params: [org] }) {
        return { status: 200, body: serviceTiersBody((await (await store()).orgs.get(org!)).serviceTiers) };
      },
    },
    {
      method: 'PUT',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/service-tiers$`),
      async handle({ req, params: [org] }) {
        const settings = serviceTiersOf(await readObject(req));
        const s = await store();
        const after = await about('allowed', () =>
          setOrgServiceTiers(s, org!, settings, operator(req), services.revocations),
        );
        return { status: 200, body: serviceTiersBody(after.serviceTiers) };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/payments$`),
      async handle({ params: [org] }) {
        const s = await store();
        const found = await s.orgs.get(org!);
        return { status: 200, body: { payments: (await s.payments.list(found.id)).map(paymentBody) } };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/keys$`),
      async handle({ params: [org] }) {
        const keys = await (await store()).keys.list(org!);
        return { status: 200, body: { keys: keys.map(keyBody) } };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/keys$`),
      async handle({ req, params: [org] }) {
        const name = stringField(await readObject(req), 'name');
        const s = await store();
        const { key, record } = await about('name', () => s.keys.create(org!, name, operator(req)));
        return { status: 201, body: { key, record: keyBody(record) } };
      },
    },
    {
      method: 'POST',
      path: /^\/admin\/v1\/keys\/([^/]+)\/revoke$/,
      async handle({ req, params: [id] }) {
        const record = await (await store()).keys.revoke(id!, operator(req));
        // Every auth cache listening (this node's, every node's with Redis) drops the key now, not at its TTL.
        await services.revocations.publish(record.id);
        return { status: 200, body: keyBody(record) };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/usage$`),
      async handle({ params: [org], query }) {
        const days = daysParam(query.get('days'));
        const s = await store();
        const found = await s.orgs.get(org!);
        return { status: 200, body: await usageByDay(s.db, found.id, days) };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/usage/export$`),
      async handle({ params: [org], query }) {
        const request = exportRequestOf(query);
        const s = await store();
        return usageExportAnswer(s.db, { orgId: (await s.orgs.get(org!)).id }, request);
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/admin/v1/orgs/${ORG}/audit$`),
      async handle({ params: [org] }) {
        const s = await store();
        const found = await s.orgs.get(org!);
        return { status: 200, body: { entries: (await s.audit.list(found.id)).map(auditBody) } };
      },
    },
    ...alertRoutes({
      prefix: '/admin/v1/orgs',
      async access(_req, org) {
        const s = await store();
        return { orgId: (await s.orgs.get(org)).id, store: s };
      },
      webhookKey: services.webhookKey,
    }),
    ...capRoutes({
      prefix: '/admin/v1/orgs',
      async access(req, org) {
        const s = await store();
        return { orgId: (await s.orgs.get(org)).id, store: s, actor: operator(req), ownOnly: undefined };
      },
      revocations: services.revocations,
    }),
  ];
}

/** The admin listener is the operator's own (on loopback, or behind its own access control): the socket's peer. */
const addressOf = clientAddressOf();

/** The audit log's actor for the admin API: the operator (token or dashboard), from the request's client address. */
function operator(req: IncomingMessage): Actor {
  return { who: 'operator', address: addressOf(req) };
}

/** An organization's service-tier settings as the API shows them (docs/admin.md). */
function serviceTiersBody(settings: OrgServiceTiers): { default: string; allowed: string[] | null } {
  return { default: settings.defaultTier ?? 'default', allowed: settings.allowed };
}

/** `{default, allowed}` of PUT …/service-tiers: `default` a tier name (absent or null: `default`), `allowed` a list of flex and priority, or null for every tier offered. */
function serviceTiersOf(body: Record<string, unknown>): OrgServiceTiers {
  const { default: defaultTier = null, allowed = null } = body;
  if (defaultTier !== null && !(TIER_NAMES as readonly unknown[]).includes(defaultTier))
    throw new AdminError('invalid_request', `'default' must be one of ${TIER_NAMES.join(', ')}`, 'default');
  if (allowed !== null && (!Array.isArray(allowed) || allowed.some((tier) => tier !== 'flex' && tier !== 'priority')))
    throw new AdminError(
      'invalid_request',
      "'allowed' must be null (every tier offered) or a list of 'flex' and 'priority'",
      'allowed',
    );
  return { defaultTier: defaultTier as TierName | null, allowed: allowed as ExtraTierName[] | null };
}

function stringField(body: Record<string, unknown>, field: string, prefix = ''): string {
  const value = body[field];
  if (typeof value !== 'string')
    throw new AdminError('invalid_request', `'${prefix}${field}' must be a string`, prefix + field);
  return value;
}

function membersField(value: unknown): NewMember[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new AdminError('invalid_request', "'members' must be a list of {email, role}", 'members');
  return value.map((item: unknown, index) => {
    const prefix = `members[${index}].`;
    if (typeof item !== 'object' || item === null)
      throw new AdminError(
        'invalid_request',
        `'members[${index}]' must be an object {email, role}`,
        `members[${index}]`,
      );
    const member = memberOf(item as Record<string, unknown>, prefix);
    // Checked here, not left to the store, so that a refusal names the member's field rather than the org's name.
    if (!/^[^\s@]+@[^\s@]+$/.test(member.email.trim()))
      throw new AdminError('invalid_request', `'${member.email}' is not an e-mail address`, `${prefix}email`);
    return member;
  });
}

function memberOf(body: Record<string, unknown>, prefix: string): NewMember {
  const email = stringField(body, 'email', prefix);
  const role = body.role;
  if (!ROLES.includes(role as MemberRole))
    throw new AdminError('invalid_request', `'${prefix}role' must be one of ${ROLES.join(', ')}`, `${prefix}role`);
  return { email, role: role as MemberRole };
}

export function daysParam(text: string | null): number {
  if (text === null) return 30;
  const days = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(days >= 1 && days <= 366))
    throw new AdminError('invalid_request', "'days' must be a whole number from 1 to 366", 'days');
  return days;
}
