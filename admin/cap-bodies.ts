// Caps on the wire of the admin API and the console (issue #28): the request body that sets a key's or a
// member's caps, read field by field so that a refusal names its field, and the JSON of caps and their use.
// One unit for spend: integer micro-credits (`day_micros` 5000000 is 5 credits), as the store keeps them.
import { CAP_FIELDS, CAP_NAMES, capsJson, MAX_RATE_CAP, SPEND_PERIODS, type Caps } from '../store/cap-rules.js';
import type { CapsRecord, CapUse } from '../store/caps.js';
import { MAX_MICROS } from '../store/money.js';
import { AdminError } from './errors.js';

/**
 * The caps a PUT body sets: each field a CAP_FIELDS name with a whole number from 0 to its maximum, or
 * null (no cap); an absent field is no cap too, so the body replaces every cap. Anything else is a 400
 * naming the field.
 */
export function capsBody(body: Record<string, unknown>): Caps {
  const known = new Set<string>(Object.values(CAP_FIELDS));
  const unknown = Object.keys(body).find((field) => !known.has(field));
  if (unknown !== undefined)
    throw new AdminError(
      'invalid_request',
      `'${unknown}' is not a cap: the caps are ${[...known].join(', ')}`,
      unknown,
    );
  const caps: Caps = {};
  for (const name of CAP_NAMES) {
    const field = CAP_FIELDS[name];
    const value = body[field];
    if (value === undefined || value === null) continue;
    const max = name.endsWith('Micros') ? MAX_MICROS : MAX_RATE_CAP;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
      throw new AdminError(
        'invalid_request',
        `'${field}' must be a whole number from 0 to ${max}${name.endsWith('Micros') ? ' micro-credits' : ''}, or null for no cap`,
        field,
      );
    caps[name] = value;
  }
  return caps;
}

/** What a scope has used: the spend of each period (settled and held) with its reset, and the requests in flight. */
export function capUseBody(use: CapUse) {
  const body: Record<string, number | string> = {};
  for (const period of SPEND_PERIODS) {
    body[`${period}_micros`] = use.spentMicros[period];
    body[`${period}_resets_at`] = new Date(use.resetsAt[period]).toISOString();
  }
  body.concurrent_requests = use.inFlight;
  return body;
}

/** One scope's caps as stored (the list of an organization's caps). */
export function capsRecordBody(record: CapsRecord) {
  return {
    scope: record.scope.kind,
    ...(record.scope.kind === 'key' ? { key_id: record.scope.keyId } : { email: record.scope.email }),
    caps: capsJson(record.caps),
    updated_by: record.updatedBy,
    updated_at: record.updatedAt.toISOString(),
  };
}

/** A key's or a member's caps, with what it has used against them now. */
export function scopeCapsBody(
  whose: { key_id: string; key_name: string; member: string | null } | { email: string },
  record: CapsRecord | undefined,
  use: CapUse,
) {
  return {
    scope: 'key_id' in whose ? 'key' : 'member',
    ...whose,
    caps: capsJson(record?.caps),
    use: capUseBody(use),
    updated_by: record?.updatedBy ?? null,
    updated_at: record?.updatedAt.toISOString() ?? null,
  };
}
