// The store's commands for `gateway` (bin/gateway.ts): orgs, credits, keys and the ledger check. Each returns the lines
// to print; a wrong call is a UsageError, a refused change a StoreError, both one line.
import type { Actor } from '../store/audit-log.js';
import { auditBalances, type BalanceAudit } from '../store/balance-audit.js';
import { formatCredits, parseCredits } from '../store/credits.js';
import { CAP_USAGE, runCapCommand, type CapFlag } from './cap-commands.js';
import type { ApiKeyRecord } from '../store/keys.js';
import { tierFor, type Tier } from '../limits/tiers.js';
import type { NewMember, Org } from '../store/orgs.js';
import { TIER_NAMES, type ExtraTierName, type OrgServiceTiers, type TierName } from '../store/org-service-tiers.js';
import type { RevocationBus } from '../store/revocations.js';
import { setOrgServiceTiers } from './service-tier-settings.js';
import type { MemberRole } from '../store/schema.js';
import type { Store } from '../store/store.js';

export const STORE_USAGE = `  gateway orgs create NAME [--member EMAIL:ROLE]…   create an organization (ROLE: admin | member)
  gateway orgs list                                 id, name, balance, lifetime spend, created
  gateway orgs show ORG                             the above, the rate-limit tier, and the members
  gateway orgs service-tiers ORG [DEFAULT ALLOWED]  show, or set, its service tiers (docs/service-tiers.md): DEFAULT
                                                    (default | flex | priority) serves a request naming none;
                                                    ALLOWED, the tiers beyond default it may ask for: all (every
                                                    tier offered), none, or a list such as flex,priority
  gateway members add ORG EMAIL:ROLE                add a member, or change a member's role
  gateway members remove ORG EMAIL                  remove a member
  gateway credits add ORG AMOUNT                    add credits (1 credit = $1; up to 6 decimals)
  gateway keys create ORG NAME                      create an API key and print it (shown only this once)
  gateway keys list ORG                             id, name, last 4, created, last used, status
  gateway keys revoke KEY_ID                        revoke a key for good
  gateway ledger check                              per organization: balance = credits added − settled − held? (exit 1 if not)
${CAP_USAGE}
  (ORG is an organization's name or id; the store is PostgreSQL at store.url, GATEWAY_DATABASE_URL, or else
   gateway.db in data_dir, GATEWAY_DATA_DIR)`;

export const STORE_COMMANDS: ReadonlySet<string> = new Set(['orgs', 'members', 'credits', 'keys', 'ledger', 'caps']);

export class UsageError extends Error {}

/** The audit log's name for changes made with the CLI (on the store's machine: no client address). */
const CLI_ACTOR: Actor = { who: 'cli', address: null };

export interface CliOutput {
  /** Lines for stdout (what a script reads: ids, the key). */
  out: string[];
  /** Lines for stderr (notes for the person at the terminal). */
  err: string[];
  /** The command found something wrong (the command exits 1). */
  failed?: boolean;
}

export interface StoreCommandOptions {
  /** `--member` values of `orgs create`, or the one of `caps`. */
  members?: readonly string[];
  /** `--key` of `caps`. */
  key?: string;
  /** The cap options of `caps set` by name (`day-micros` → "5000000"). */
  caps?: Readonly<Partial<Record<CapFlag, string>>>;
  /** Where `keys revoke` and a change of caps are announced (every gateway node hears them with Redis). */
  revocations?: RevocationBus;
  /** The rate-limit tiers (config `limits.tiers`), for `orgs show`. */
  tiers: readonly Tier[];
}

export async function runStoreCommand(
  store: Store,
  args: readonly string[],
  options: StoreCommandOptions,
): Promise<CliOutput> {
  const members = options.members ?? [];
  const [command, action, ...rest] = args;
  const want = (count: number, shape: string): string[] => {
    if (rest.length !== count) throw new UsageError(`usage: gateway ${command} ${action} ${shape}`);
    return rest;
  };
  if (command === 'caps')
    return runCapCommand(store, action, rest, {
      key: options.key,
      members,
      caps: options.caps ?? {},
      revocations: options.revocations,
      actor: CLI_ACTOR,
      usage: (message) => new UsageError(message),
    });
  switch (`${command} ${action}`) {
    case 'orgs create': {
      const [name] = want(1, 'NAME [--member EMAIL:ROLE]…');
      const org = await store.orgs.create(name!, members.map(parseMember), CLI_ACTOR);
      return {
        out: [`${org.id}\t${org.name}`],
        err: [`created organization '${org.name}' with ${members.length} member(s)`],
      };
    }
    case 'orgs list': {
      want(0, '');
      const orgs = await store.orgs.list();
      return {
        out: orgs.map(orgLine),
        err: orgs.length === 0 ? ['no organizations yet: gateway orgs create NAME'] : [],
      };
    }
    case 'orgs show': {
      const [name] = want(1, 'ORG');
      const org = await store.orgs.get(name!);
      const tier = tierFor(org.spentMicros, options.tiers);
      const members = await store.orgs.members(org.id);
      return {
        out: [
          orgLine(org),
          `tier\t${tier.name}\t${tier.requestsPerMinute} requests/min\t${tier.inputTokensPerMinute} input tokens/min\t${tier.outputTokensPerMinute} output tokens/min`,
          ...members.map((member) => `member\t${member.email}\t${member.role}`),
        ],
        err: [],
      };
    }
    case 'orgs service-tiers': {
      if (rest.length !== 1 && rest.length !== 3)
        throw new UsageError(`usage: gateway orgs service-tiers ORG [DEFAULT ALLOWED]`);
      const [name, defaultTier, allowed] = rest;
      let org = await store.orgs.get(name!);
      if (defaultTier !== undefined) {
        const settings = parseTierSettings(defaultTier, allowed!);
        org = await setOrgServiceTiers(store, org.id, settings, CLI_ACTOR, options.revocations);
      }
      return {
        out: tierLines(org.serviceTiers),
        err: defaultTier === undefined ? [] : [`set the service tiers of '${org.name}'`],
      };
    }
    case 'members add': {
      const [org, member] = want(2, 'ORG EMAIL:ROLE');
      const parsed = parseMember(member!);
      await store.orgs.addMember(org!, parsed, CLI_ACTOR);
      return {
        out: [],
        err: [`'${parsed.email}' is a${parsed.role === 'admin' ? 'n' : ''} ${parsed.role} of '${org}'`],
      };
    }
    case 'members remove': {
      const [org, email] = want(2, 'ORG EMAIL');
      await store.orgs.removeMember(org!, email!, CLI_ACTOR);
      return { out: [], err: [`removed '${email}' from '${org}'`] };
    }
    case 'credits add': {
      const [org, amount] = want(2, 'ORG AMOUNT');
      const after = await store.orgs.addCredits(org!, parseCredits(amount!), 'cli', CLI_ACTOR);
      return {
        out: [`${after.id}\t${after.name}\t${formatCredits(after.balanceMicros)} credits`],
        err: [`added ${amount} credits to '${after.name}'`],
      };
    }
    case 'keys create': {
      const [org, name] = want(2, 'ORG NAME');
      const { key, record } = await store.keys.create(org!, name!, CLI_ACTOR);
      return {
        out: [key],
        err: [`created key ${record.id} '${record.name}'; the key above is shown only this once: store it now`],
      };
    }
    case 'keys list': {
      const [org] = want(1, 'ORG');
      const keys = await store.keys.list(org!);
      return { out: keys.map(keyLine), err: keys.length === 0 ? ['no keys yet: gateway keys create ORG NAME'] : [] };
    }
    case 'keys revoke': {
      const [id] = want(1, 'KEY_ID');
      const before = await store.keys.get(id!);
      const after = await store.keys.revoke(id!, CLI_ACTOR);
      await options.revocations?.publish(after.id);
      return {
        out: [keyLine(after)],
        err: [
          before.status === 'revoked' ? `key ${id} was already revoked` : `revoked key ${id}; requests with it get 401`,
        ],
      };
    }
    case 'ledger check': {
      want(0, '');
      const audits = await auditBalances(store.db);
      const unbalanced = audits.filter((audit) => audit.discrepancyMicros !== 0);
      return {
        out: audits.map(auditLine),
        err: [
          unbalanced.length === 0
            ? `the books balance for all ${audits.length} organization(s)`
            : `${unbalanced.length} organization(s) do not balance: ${unbalanced.map((audit) => audit.orgId).join(', ')}`,
        ],
        failed: unbalanced.length > 0,
      };
    }
    default:
      throw new UsageError(`unknown command 'gateway ${args.join(' ')}'`);
  }
}

/** `gateway orgs service-tiers ORG DEFAULT ALLOWED`: the settings, checked for their names (the store checks the rest). */
function parseTierSettings(defaultTier: string, allowed: string): OrgServiceTiers {
  if (!(TIER_NAMES as readonly string[]).includes(defaultTier))
    throw new UsageError(`DEFAULT '${defaultTier}': expected one of ${TIER_NAMES.join(', ')}`);
  if (allowed === 'all') return { defaultTier: defaultTier as TierName, allowed: null };
  const listed = allowed === 'none' ? [] : allowed.split(',').map((tier) => tier.trim());
  for (const tier of listed)
    if (tier !== 'flex' && tier !== 'priority')
      throw new UsageError(`ALLOWED '${allowed}': expected all, none, or a list of flex and priority`);
  return { defaultTier: defaultTier as TierName, allowed: listed as ExtraTierName[] };
}

/** An organization's service-tier settings, a line each. */
function tierLines(settings: OrgServiceTiers): string[] {
  const allowed = settings.allowed === null ? 'all' : settings.allowed.join(',') || 'none';
  return [`service_tier_default\t${settings.defaultTier ?? 'default'}`, `service_tiers_allowed\t${allowed}`];
}

/** `ada@example.com:admin` → a member. The role follows the last colon. */
function parseMember(text: string): NewMember {
  const colon = text.lastIndexOf(':');
  const role = text.slice(colon + 1);
  if (colon <= 0 || (role !== 'admin' && role !== 'member'))
    throw new UsageError(`--member '${text}': expected EMAIL:ROLE with ROLE admin or member`);
  return { email: text.slice(0, colon), role: role as MemberRole };
}

function orgLine(org: Org): string {
  return [
    org.id,
    org.name,
    `${formatCredits(org.balanceMicros)} credits`,
    `${formatCredits(org.spentMicros)} spent`,
    org.createdAt.toISOString(),
  ].join('\t');
}

function auditLine(audit: BalanceAudit): string {
  const credits = (micros: number): string => `${formatCredits(micros)} credits`;
  return [
    audit.orgId,
    `balance ${credits(audit.balanceMicros)}`,
    `added ${credits(audit.creditsAddedMicros)}`,
    `settled ${credits(audit.settledCostMicros)}`,
    `held ${credits(audit.openHoldsMicros)}`,
    `discrepancy ${credits(audit.discrepancyMicros)}`,
  ].join('\t');
}

function keyLine(key: ApiKeyRecord): string {
  return [
    key.id,
    key.name,
    `...${key.last4}`,
    key.createdAt.toISOString(),
    key.lastUsedAt?.toISOString() ?? 'never',
    key.status,
  ].join('\t');
}
