// Organizations, their members and their credit balance.
import type { Kysely } from 'kysely';
import { SYSTEM_ACTOR, writeAudit, type Actor } from './audit-log.js';
import { formatCredits } from './credits.js';
import { StoreError } from './errors.js';
import { newId } from './ids.js';
import { MAX_MICROS } from './money.js';
import { checkTierSettings, tierColumns, tiersOfColumns, type OrgServiceTiers } from './org-service-tiers.js';
import type { Database, MemberRole, OrgRow } from './schema.js';

export interface Org {
  id: string;
  name: string;
  /** Integer micro-credits. */
  balanceMicros: number;
  /** Lifetime spend, integer micro-credits (the rate-limit tier follows from it). */
  spentMicros: number;
  createdAt: Date;
  /** The operator's service-tier settings for it (store/org-service-tiers.ts). */
  serviceTiers: OrgServiceTiers;
}

export interface Member {
  email: string;
  role: MemberRole;
  createdAt: Date;
}

export interface NewMember {
  email: string;
  role: MemberRole;
}

/** An organization an e-mail address belongs to, with its role there. */
export interface Membership {
  org: Org;
  role: MemberRole;
}

/** What addMember did. */
export type MemberChange = 'added' | 'role_changed' | 'unchanged';

const ROLES: readonly MemberRole[] = ['admin', 'member'];
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export class Orgs {
  constructor(private readonly db: Kysely<Database>) {}

  /** A new organization with a zero balance, and its first members. Names are unique and not id-shaped. */
  async create(name: string, members: readonly NewMember[] = [], actor: Actor = SYSTEM_ACTOR): Promise<Org> {
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 100)
      throw new StoreError('GW_ERR_STORE_INVALID', 'an organization name has 1 to 100 characters');
    if (trimmed.startsWith('org_'))
      throw new StoreError('GW_ERR_STORE_INVALID', `an organization name may not start with 'org_' (ids do)`);
    const checked = members.map(checkMember);
    const row: OrgRow = {
      id: newId('org'),
      name: trimmed,
      balance_micros: 0,
      spent_micros: 0,
      created_at: Date.now(),
      service_tier_default: null,
      service_tiers_allowed: null,
    };
    await this.db.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('orgs').select('id').where('name', '=', trimmed).executeTakeFirst();
      if (existing)
        throw new StoreError('GW_ERR_STORE_ORG_EXISTS', `an organization named '${trimmed}' exists (${existing.id})`);
      await trx.insertInto('orgs').values(row).execute();
      await writeAudit(trx, { orgId: row.id, action: 'org.created', actor, detail: { name: trimmed } });
      for (const member of checked) {
        await trx
          .insertInto('members')
          .values({ org_id: row.id, email: member.email, role: member.role, created_at: row.created_at })
          .execute();
        await writeAudit(trx, {
          orgId: row.id,
          action: 'member.added',
          actor,
          subject: member.email,
          detail: { role: member.role },
        });
      }
    });
    return toOrg(row);
  }

  async list(): Promise<Org[]> {
    const rows = await this.db.selectFrom('orgs').selectAll().orderBy('created_at').orderBy('name').execute();
    return rows.map(toOrg);
  }

  /** The organization with this id or name, or undefined. */
  async find(nameOrId: string): Promise<Org | undefined> {
    const row = await this.db
      .selectFrom('orgs')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', nameOrId), eb('name', '=', nameOrId)]))
      .executeTakeFirst();
    return row && toOrg(row);
  }

  /** Like find, but a missing organization is a StoreError. */
  async get(nameOrId: string): Promise<Org> {
    const org = await this.find(nameOrId);
    if (org === undefined) throw new StoreError('GW_ERR_STORE_ORG_NOT_FOUND', `no organization '${nameOrId}'`);
    return org;
  }

  async members(nameOrId: string): Promise<Member[]> {
    const org = await this.get(nameOrId);
    const rows = await this.db
      .selectFrom('members')
      .selectAll()
      .where('org_id', '=', org.id)
      .orderBy('email')
      .execute();
    return rows.map((row) => ({ email: row.email, role: row.role, createdAt: new Date(row.created_at) }));
  }

  /** The organizations an e-mail address is a member of, by name. */
  async memberships(email: string): Promise<Membership[]> {
    const rows = await this.db
      .selectFrom('members')
      .innerJoin('orgs', 'orgs.id', 'members.org_id')
      .selectAll('orgs')
      .select('members.role')
      .where('members.email', '=', email.trim().toLowerCase())
      .orderBy('orgs.name')
      .execute();
    return rows.map(({ role, ...org }) => ({ org: toOrg(org), role }));
  }

  /** The role of an e-mail address in an organization (by id), or undefined if it is not a member. */
  async roleOf(orgId: string, email: string): Promise<MemberRole | undefined> {
    const row = await this.db
      .selectFrom('members')
      .select('role')
      .where('org_id', '=', orgId)
      .where('email', '=', email.trim().toLowerCase())
      .executeTakeFirst();
    return row?.role;
  }

  /** Adds a member, or changes the role of one already there; the audit log says which. */
  async addMember(nameOrId: string, member: NewMember, actor: Actor = SYSTEM_ACTOR): Promise<MemberChange> {
    const { email, role } = checkMember(member);
    const org = await this.get(nameOrId);
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('members')
        .select('role')
        .where('org_id', '=', org.id)
        .where('email', '=', email)
        .executeTakeFirst();
      if (existing?.role === role) return 'unchanged';
      if (existing === undefined)
        await trx.insertInto('members').values({ org_id: org.id, email, role, created_at: Date.now() }).execute();
      else
        await trx
          .updateTable('members')
          .set({ role })
          .where('org_id', '=', org.id)
          .where('email', '=', email)
          .execute();
      const change = existing === undefined ? 'added' : 'role_changed';
      await writeAudit(trx, {
        orgId: org.id,
        action: change === 'added' ? 'member.added' : 'member.role_changed',
        actor,
        subject: email,
        detail: existing === undefined ? { role } : { role, previous_role: existing.role },
      });
      return change;
    });
  }

  async removeMember(nameOrId: string, email: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
    const org = await this.get(nameOrId);
    const address = email.trim().toLowerCase();
    await this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('members')
        .where('org_id', '=', org.id)
        .where('email', '=', address)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n)
        throw new StoreError('GW_ERR_STORE_MEMBER_NOT_FOUND', `'${email}' is not a member of '${org.name}'`);
      await writeAudit(trx, { orgId: org.id, action: 'member.removed', actor, subject: address });
    });
  }

  /** The organization's service-tier settings, by id; an unknown organization has none. */
  async serviceTiersOf(orgId: string): Promise<OrgServiceTiers> {
    const row = await this.db
      .selectFrom('orgs')
      .select(['service_tier_default', 'service_tiers_allowed'])
      .where('id', '=', orgId)
      .executeTakeFirst();
    return tiersOfColumns(row?.service_tier_default ?? null, row?.service_tiers_allowed ?? null);
  }

  /** Sets the organization's service-tier settings (both: null resets one), with its audit entry; returns the org after. */
  async setServiceTiers(nameOrId: string, settings: OrgServiceTiers, actor: Actor = SYSTEM_ACTOR): Promise<Org> {
    const checked = checkTierSettings(settings);
    const org = await this.get(nameOrId);
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('orgs').set(tierColumns(checked)).where('id', '=', org.id).execute();
      await writeAudit(trx, {
        orgId: org.id,
        action: 'service_tiers.set',
        actor,
        detail: { default: checked.defaultTier, allowed: checked.allowed },
      });
    });
    return this.get(org.id);
  }

  /**
   * Adds a positive whole number of micro-credits to the balance and records the grant, in one
   * transaction (the grants are the first term of the balance invariant, store/balance-audit.ts);
   * returns the org after. `note` says where the credits came from (admin api, cli, …).
   */
  async addCredits(
    nameOrId: string,
    micros: number,
    note = 'credits added',
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<Org> {
    if (!Number.isSafeInteger(micros) || micros <= 0)
      throw new StoreError('GW_ERR_STORE_INVALID', 'credits to add must be a positive whole number of micro-credits');
    const org = await this.get(nameOrId);
    if (org.balanceMicros + micros > MAX_MICROS)
      throw new StoreError(
        'GW_ERR_STORE_INVALID',
        `the balance would exceed the largest amount the gateway holds (${formatCredits(MAX_MICROS)} credits)`,
      );
    await this.db.transaction().execute(async (trx) => {
      const now = Date.now();
      await trx
        .insertInto('credit_grants')
        .values({ id: newId('grant'), org_id: org.id, amount_micros: micros, note, created_at: now })
        .execute();
      await trx
        .updateTable('orgs')
        .set((eb) => ({ balance_micros: eb('balance_micros', '+', micros) }))
        .where('id', '=', org.id)
        .execute();
      await writeAudit(trx, { orgId: org.id, action: 'credits.added', actor, detail: { amount_micros: micros, note } });
    });
    return this.get(org.id);
  }
}

function checkMember(member: NewMember): NewMember {
  const email = member.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new StoreError('GW_ERR_STORE_INVALID', `'${member.email}' is not an e-mail address`);
  if (!ROLES.includes(member.role))
    throw new StoreError('GW_ERR_STORE_INVALID', `role '${member.role}' is not one of ${ROLES.join(', ')}`);
  return { email, role: member.role };
}

function toOrg(row: OrgRow): Org {
  return {
    id: row.id,
    name: row.name,
    balanceMicros: Number(row.balance_micros),
    spentMicros: Number(row.spent_micros),
    createdAt: new Date(Number(row.created_at)),
    serviceTiers: tiersOfColumns(row.service_tier_default, row.service_tiers_allowed),
  };
}
