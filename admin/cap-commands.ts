// `gateway caps …` (admin/cli.ts): a key's or a member's caps set, cleared and shown from the store's
// machine, with what it has used against them; the whole organization's caps without a key or member.
// Like the admin API's PUT, `set` replaces every cap: the caps not given are cleared.
import type { Actor } from '../store/audit-log.js';
import { CAP_FIELDS, CAP_NAMES, capsJson, type CapName } from '../store/cap-rules.js';
import { StoreError } from '../store/errors.js';
import type { RevocationBus } from '../store/revocations.js';
import type { Store } from '../store/store.js';
import { capsBody } from './cap-bodies.js';
import { keyTarget, memberTarget, setTargetCaps, targetCapsBody, type CapTarget } from './cap-target.js';
import { AdminError } from './errors.js';

export const CAP_USAGE = `  gateway caps set ORG (--key KEY_ID | --member EMAIL) [--day-micros N] [--week-micros N] [--month-micros N]
                  [--rpm N] [--itpm N] [--otpm N] [--concurrent N]
                                                    set a key's or a member's caps (micro-credits per UTC day,
                                                    week, month; requests, input and output tokens per minute;
                                                    requests in flight); the caps not given are cleared
  gateway caps show ORG [--key KEY_ID | --member EMAIL]
                                                    the organization's caps, or one key's or member's with their use
  gateway caps clear ORG (--key KEY_ID | --member EMAIL)
                                                    clear a key's or a member's caps`;

/** Each cap's option of `caps set`. */
export const CAP_FLAGS = {
  dayMicros: 'day-micros',
  weekMicros: 'week-micros',
  monthMicros: 'month-micros',
  requestsPerMinute: 'rpm',
  inputTokensPerMinute: 'itpm',
  outputTokensPerMinute: 'otpm',
  concurrentRequests: 'concurrent',
} as const satisfies Record<CapName, string>;

export type CapFlag = (typeof CAP_FLAGS)[CapName];

export interface CapCommandOptions {
  /** `--key`. */
  key: string | undefined;
  /** `--member` (the option `orgs create` repeats: here at most once). */
  members: readonly string[];
  /** The cap options given, by option name (`day-micros` → "5000000"). */
  caps: Readonly<Partial<Record<CapFlag, string>>>;
  revocations: RevocationBus | undefined;
  actor: Actor;
  /** How a wrong call is refused (cli.ts's UsageError). */
  usage(message: string): Error;
}

export async function runCapCommand(
  store: Store,
  action: string | undefined,
  rest: readonly string[],
  options: CapCommandOptions,
): Promise<{ out: string[]; err: string[] }> {
  if (rest.length !== 1)
    throw options.usage(`usage: gateway caps ${action ?? 'set|show|clear'} ORG [--key KEY_ID | --member EMAIL]`);
  const orgId = (await store.orgs.get(rest[0]!)).id;
  const given = CAP_NAMES.filter((name) => options.caps[CAP_FLAGS[name]] !== undefined);
  if (action !== 'set' && given.length > 0)
    throw options.usage(`--${CAP_FLAGS[given[0]!]} is for 'gateway caps set' only`);
  const target = await targetOf(store, orgId, options);
  switch (action) {
    case 'show': {
      if (target === undefined) {
        const records = await store.caps.list(orgId);
        return {
          out: records.map((record) =>
            [
              record.scope.kind,
              record.scope.kind === 'key' ? record.scope.keyId : record.scope.email,
              ...Object.entries(capsJson(record.caps)).map(([field, value]) => `${field}=${value}`),
            ].join('\t'),
          ),
          err: records.length === 0 ? ['no caps in this organization'] : [],
        };
      }
      return { out: await targetLines(store, target), err: [] };
    }
    case 'set':
    case 'clear': {
      if (target === undefined)
        throw options.usage(`usage: gateway caps ${action} ORG (--key KEY_ID | --member EMAIL) …`);
      if (action === 'set' && given.length === 0)
        throw options.usage("give at least one cap (--day-micros N …), or clear them with 'gateway caps clear'");
      const caps = action === 'set' ? capsOfFlags(options) : {};
      await setTargetCaps(store, target, caps, options.actor, options.revocations);
      const whose = target.scope.kind === 'key' ? `the key ${target.scope.keyId}` : `the member ${target.scope.email}`;
      return {
        out: await targetLines(store, target),
        err: [`${action === 'set' ? 'set' : 'cleared'} the caps of ${whose}`],
      };
    }
    default:
      throw options.usage(`unknown command 'gateway caps ${action ?? ''}': set, show or clear`);
  }
}

/** The key or member the options name; undefined for neither. */
async function targetOf(store: Store, orgId: string, options: CapCommandOptions): Promise<CapTarget | undefined> {
  if (options.members.length > 1 || (options.key !== undefined && options.members.length > 0))
    throw options.usage('name one key (--key KEY_ID) or one member (--member EMAIL)');
  try {
    if (options.key !== undefined) return await keyTarget(store, orgId, options.key);
    if (options.members.length === 1) return await memberTarget(store, orgId, options.members[0]!);
    return undefined;
  } catch (error) {
    if (!(error instanceof AdminError)) throw error;
    const code = error.code === 'key_not_found' ? 'GW_ERR_STORE_KEY_NOT_FOUND' : 'GW_ERR_STORE_MEMBER_NOT_FOUND';
    throw new StoreError(code, error.message);
  }
}

/** The cap options as caps, each a whole number in its bounds (capsBody's checks, told by option name); else refused like a bad amount. */
function capsOfFlags(options: CapCommandOptions) {
  const body: Record<string, number> = {};
  for (const name of CAP_NAMES) {
    const text = options.caps[CAP_FLAGS[name]];
    if (text === undefined) continue;
    if (!/^\d{1,16}$/.test(text))
      throw new StoreError('GW_ERR_STORE_INVALID', `--${CAP_FLAGS[name]} must be a whole number, not '${text}'`);
    body[CAP_FIELDS[name]] = Number(text);
  }
  try {
    return capsBody(body);
  } catch (error) {
    if (!(error instanceof AdminError)) throw error;
    const name = CAP_NAMES.find((cap) => CAP_FIELDS[cap] === error.field);
    throw new StoreError(
      'GW_ERR_STORE_INVALID',
      name === undefined ? error.message : `--${CAP_FLAGS[name]}: ${error.message}`,
    );
  }
}

/** A key's or member's caps and use, a line each: `cap FIELD VALUE`, `use FIELD VALUE [resets AT]`. */
async function targetLines(store: Store, target: CapTarget): Promise<string[]> {
  const body = await targetCapsBody(store, target);
  const head =
    'key_id' in body
      ? ['key', body.key_id, body.key_name, body.member ?? '-']
      : ['member', (body as { email: string }).email];
  return [
    head.join('\t'),
    ...Object.entries(body.caps).map(([field, value]) => `cap\t${field}\t${value}`),
    ...(['day', 'week', 'month'] as const).map(
      (period) => `use\t${period}_micros\t${body.use[`${period}_micros`]}\tresets ${body.use[`${period}_resets_at`]}`,
    ),
    `use\tconcurrent_requests\t${body.use.concurrent_requests}`,
  ];
}
