// The member API under /console/v1: what a signed-in member sees and does in the organizations it
// belongs to (docs/console.md lists the routes). Every route past the session names an organization
// by id and goes through orgOfMember: another organization is a 404, whatever the id.
import type { IncomingMessage } from 'node:http';
import { alertRoutes } from '../admin/alert-routes.js';
import { daysParam } from '../admin/api.js';
import type { AddressOf } from '../admin/client-address.js';
import { auditBody, keyBody, memberBody, tierBody } from '../admin/bodies.js';
import { capRoutes } from '../admin/cap-routes.js';
import { about, AdminError } from '../admin/errors.js';
import { readObject } from '../admin/http.js';
import type { AdminRoute } from '../admin/routes.js';
import type { Sessions } from '../admin/session.js';
import { usageByDay } from '../admin/usage.js';
import { exportRequestOf } from '../admin/usage-export/export-request.js';
import { usageExportAnswer } from '../admin/usage-export/usage-export.js';
import { tierFor, type Tier } from '../limits/tiers.js';
import { formatCredits } from '../store/credits.js';
import type { ApiKeyRecord } from '../store/keys.js';
import type { RevocationBus } from '../store/revocations.js';
import type { MemberRole } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { batchRoutes } from './batch-routes.js';
import { emailField, type EmailSignIn } from './email-sign-in.js';
import { memberActor, requireMember, type SignedInMember } from './member-session.js';
import { orgOfMember, requireAdmin, type OrgAccess } from './org-access.js';

/** One rate-limit counter in its current window. */
export interface WindowCount {
  used: number;
  /** Unix ms. */
  resetAt: number;
}

/** An organization's tier and its windows' use, as the rate limiter counts them (plugins/ratelimit). */
export interface WindowUse {
  tier: Tier;
  counts: Record<'requests' | 'input' | 'output', WindowCount>;
}

export interface MemberApiOptions {
  store: () => Promise<Store>;
  sessions: Sessions;
  tiers: readonly Tier[];
  revocations: RevocationBus;
  /** The rate limiter's reading of an organization's windows; undefined without the ratelimit plugin. */
  windowUse: ((orgId: string) => Promise<WindowUse>) | undefined;
  /** E-mails invitations; undefined without `mail.url` (members are still added). */
  emailSignIn: EmailSignIn | undefined;
  /** The client's address, for the audit log. */
  addressOf: AddressOf;
  /** The key that seals webhook signing secrets (services.webhookKey). */
  webhookKey(): Promise<Buffer>;
  /** Whether the gateway runs batches (`batch.enabled`): the organization's answer says so, and the batch routes. */
  batches: boolean;
}

/** A signed-in member's access to the organization of the path, with the store. */
type MemberAccess = OrgAccess & { member: SignedInMember; s: Store };

const ROLES: readonly MemberRole[] = ['admin', 'member'];
const ORG = '([^/]+)';

export function memberApiRoutes(options: MemberApiOptions): AdminRoute[] {
  const { store, sessions } = options;

  /** The signed-in member and its access to the organization of the path. */
  const access = async (req: IncomingMessage, orgId: string): Promise<MemberAccess> => {
    const member = await requireMember(sessions, req);
    const s = await store();
    return { ...(await orgOfMember(s, orgId, member.email)), member, s };
  };

  return [
    {
      method: 'GET',
      path: /^\/console\/v1\/session$/,
      async handle({ req }) {
        const member = await requireMember(sessions, req);
        const memberships = await (await store()).orgs.memberships(member.email);
        return {
          status: 200,
          body: {
            email: member.email,
            csrf_token: member.session.csrfToken,
            expires_at: new Date(member.session.expiresAt).toISOString(),
            orgs: memberships.map(({ org, role }) => ({ id: org.id, name: org.name, role })),
          },
        };
      },
    },
    {
      method: 'POST',
      path: /^\/console\/v1\/sign-out$/,
      async handle({ req }) {
        const signedIn = await sessions.fromRequest(req);
        if (signedIn !== undefined) {
          await requireMember(sessions, req);
          await sessions.end(signedIn);
        }
        return { status: 204, headers: { 'set-cookie': sessions.clearedCookie(req) } };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}$`),
      async handle({ req, params: [orgId] }) {
        const { org, role } = await access(req, orgId!);
        const use = await options.windowUse?.(org.id);
        const tier = use?.tier ?? tierFor(org.spentMicros, options.tiers);
        return {
          status: 200,
          body: {
            id: org.id,
            name: org.name,
            role,
            balance: formatCredits(org.balanceMicros),
            balance_micros: org.balanceMicros,
            spent: formatCredits(org.spentMicros),
            spent_micros: org.spentMicros,
            tier: tierBody(tier),
            batches: options.batches,
            window:
              use === undefined
                ? null
                : {
                    requests: countBody(use.counts.requests, tier.requestsPerMinute),
                    input_tokens: countBody(use.counts.input, tier.inputTokensPerMinute),
                    output_tokens: countBody(use.counts.output, tier.outputTokensPerMinute),
                  },
          },
        };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/usage$`),
      async handle({ req, params: [orgId], query }) {
        const days = daysParam(query.get('days'));
        const { org, s } = await access(req, orgId!);
        return { status: 200, body: await usageByDay(s.db, org.id, days) };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/usage/export$`),
      async handle({ req, params: [orgId], query }) {
        const { org, role, member, s } = await access(req, orgId!);
        const request = exportRequestOf(query);
        // An admin exports every key's usage; a member only that of the keys it made.
        const scope = role === 'admin' ? { orgId: org.id } : { orgId: org.id, createdBy: member.email };
        return usageExportAnswer(s.db, scope, request);
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/keys$`),
      async handle({ req, params: [orgId] }) {
        const found = await access(req, orgId!);
        const keys = await found.s.keys.list(found.org.id);
        return {
          status: 200,
          body: { keys: keys.map((key) => ({ ...keyBody(key), can_revoke: mayRevoke(found, key) })) },
        };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/console/v1/orgs/${ORG}/keys$`),
      async handle({ req, params: [orgId] }) {
        const found = await access(req, orgId!);
        const { name } = await readObject(req);
        if (typeof name !== 'string') throw new AdminError('invalid_request', "'name' must be a string", 'name');
        const { key, record } = await about('name', () =>
          found.s.keys.create(found.org.id, name, memberActor(found.member, req, options.addressOf)),
        );
        return { status: 201, body: { key, record: { ...keyBody(record), can_revoke: true } } };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/console/v1/orgs/${ORG}/keys/([^/]+)/revoke$`),
      async handle({ req, params: [orgId, keyId] }) {
        const found = await access(req, orgId!);
        const key = await found.s.keys.get(keyId!);
        // Another organization's key is not found here either.
        if (key.orgId !== found.org.id) throw new AdminError('key_not_found', `no key '${keyId}'`);
        if (!mayRevoke(found, key) && key.status === 'active')
          throw new AdminError('forbidden', "only the key's creator or an organization admin can revoke it");
        const record = await found.s.keys.revoke(key.id, memberActor(found.member, req, options.addressOf));
        // Every node's auth cache drops the key now, not at its TTL.
        await options.revocations.publish(record.id);
        return { status: 200, body: { ...keyBody(record), can_revoke: false } };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/members$`),
      async handle({ req, params: [orgId] }) {
        const { org, s } = await access(req, orgId!);
        return { status: 200, body: { members: (await s.orgs.members(org.id)).map(memberBody) } };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/console/v1/orgs/${ORG}/members$`),
      async handle({ req, params: [orgId] }) {
        const found = await access(req, orgId!);
        requireAdmin(found, 'invite members');
        const body = await readObject(req);
        const email = emailField(body, 'email');
        const role = roleField(body);
        if ((await found.s.orgs.roleOf(found.org.id, email)) !== undefined)
          throw new AdminError('member_exists', `'${email}' is already a member of '${found.org.name}'`, 'email');
        await about('email', () =>
          found.s.orgs.addMember(found.org.id, { email, role }, memberActor(found.member, req, options.addressOf)),
        );
        const invitation = { orgName: found.org.name, by: found.member.email };
        const mailed = (await options.emailSignIn?.invite(email, invitation)) ?? false;
        return {
          status: 201,
          body: { members: (await found.s.orgs.members(found.org.id)).map(memberBody), mailed },
        };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/console/v1/orgs/${ORG}/members/([^/]+)/role$`),
      async handle({ req, params: [orgId, email] }) {
        const found = await access(req, orgId!);
        requireAdmin(found, 'change roles');
        const role = roleField(await readObject(req));
        const target = await memberOf(found, email!);
        if (target.role === 'admin' && role !== 'admin') await keepAnAdmin(found, 'take the admin role from');
        await found.s.orgs.addMember(
          found.org.id,
          { email: target.email, role },
          memberActor(found.member, req, options.addressOf),
        );
        return { status: 200, body: { members: (await found.s.orgs.members(found.org.id)).map(memberBody) } };
      },
    },
    {
      method: 'DELETE',
      path: new RegExp(`^/console/v1/orgs/${ORG}/members/([^/]+)$`),
      async handle({ req, params: [orgId, email] }) {
        const found = await access(req, orgId!);
        requireAdmin(found, 'remove members');
        const target = await memberOf(found, email!);
        if (target.role === 'admin') await keepAnAdmin(found, 'remove');
        await found.s.orgs.removeMember(found.org.id, target.email, memberActor(found.member, req, options.addressOf));
        return { status: 200, body: { members: (await found.s.orgs.members(found.org.id)).map(memberBody) } };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/audit$`),
      async handle({ req, params: [orgId] }) {
        const found = await access(req, orgId!);
        requireAdmin(found, 'read the audit log');
        return { status: 200, body: { entries: (await found.s.audit.list(found.org.id)).map(auditBody) } };
      },
    },
    ...alertRoutes({
      prefix: '/console/v1/orgs',
      async access(req, orgId) {
        const found = await access(req, orgId);
        requireAdmin(found, 'manage alerts and webhooks');
        return { orgId: found.org.id, store: found.s };
      },
      webhookKey: options.webhookKey,
    }),
    ...capRoutes({
      prefix: '/console/v1/orgs',
      async access(req, orgId) {
        const found = await access(req, orgId);
        return {
          orgId: found.org.id,
          store: found.s,
          actor: memberActor(found.member, req, options.addressOf),
          ownOnly: found.role === 'admin' ? undefined : found.member.email,
        };
      },
      revocations: options.revocations,
    }),
    ...batchRoutes({
      enabled: options.batches,
      async access(req, orgId) {
        const found = await access(req, orgId);
        return { orgId: found.org.id, store: found.s };
      },
    }),
  ];
}

/** A member revokes its own active keys; an organization admin any of the organization's. */
function mayRevoke(access: MemberAccess, key: ApiKeyRecord): boolean {
  return key.status === 'active' && (access.role === 'admin' || key.createdBy === access.member.email);
}

function countBody(count: { used: number; resetAt: number }, limit: number) {
  return { used: count.used, limit, reset_at: new Date(count.resetAt).toISOString() };
}

function roleField(body: Record<string, unknown>): MemberRole {
  const role = body.role;
  if (!ROLES.includes(role as MemberRole))
    throw new AdminError('invalid_request', `'role' must be one of ${ROLES.join(', ')}`, 'role');
  return role as MemberRole;
}

async function memberOf(found: MemberAccess, email: string): Promise<{ email: string; role: MemberRole }> {
  const address = email.trim().toLowerCase();
  const role = await found.s.orgs.roleOf(found.org.id, address);
  if (role === undefined) throw new AdminError('member_not_found', `'${email}' is not a member of '${found.org.name}'`);
  return { email: address, role };
}

/** An organization keeps at least one admin: the console cannot lock its people out. */
async function keepAnAdmin(found: MemberAccess, what: string): Promise<void> {
  const admins = (await found.s.orgs.members(found.org.id)).filter((member) => member.role === 'admin');
  if (admins.length <= 1)
    throw new AdminError('last_admin', `cannot ${what} the organization's last admin: make another member admin first`);
}
