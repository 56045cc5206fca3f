// Whose caps a change or a read is about, as the admin API, the console and the CLI name it: a key of the
// organization (by id) or one of its members (by e-mail); anything else, another organization's key
// included, is not found. A change is stored with its audit entry (CapStore.set), then every key it
// touches is announced on the revocation bus: each node's auth cache drops the key's entry, whose caps it
// holds, so the new caps apply from the next request, not at the entry's TTL.
import type { Actor } from '../store/audit-log.js';
import type { Caps, CapScope } from '../store/cap-rules.js';
import { memberOf } from '../store/caps.js';
import type { RevocationBus } from '../store/revocations.js';
import type { Store } from '../store/store.js';
import { scopeCapsBody } from './cap-bodies.js';
import { AdminError } from './errors.js';

export interface CapTarget {
  orgId: string;
  scope: CapScope;
  /** The member the caps belong to: the key's maker (when a member made it), or the member itself. */
  member: string | undefined;
  /** How the answer names it. */
  whose: { key_id: string; key_name: string; member: string | null } | { email: string };
}

/** A key of the organization (`orgId`, an id). */
export async function keyTarget(store: Store, orgId: string, keyId: string): Promise<CapTarget> {
  const key = await store.keys.get(keyId).catch(() => undefined);
  if (key === undefined || key.orgId !== orgId) throw new AdminError('key_not_found', `no key '${keyId}'`);
  const member = memberOf(key.createdBy);
  return {
    orgId,
    scope: { kind: 'key', keyId: key.id, name: key.name },
    member,
    whose: { key_id: key.id, key_name: key.name, member: member ?? null },
  };
}

/** A member of the organization (`orgId`, an id), by e-mail in any case. */
export async function memberTarget(store: Store, orgId: string, email: string): Promise<CapTarget> {
  const address = email.trim().toLowerCase();
  if ((await store.orgs.roleOf(orgId, address)) === undefined)
    throw new AdminError('member_not_found', `'${email}' is not a member of this organization`);
  return { orgId, scope: { kind: 'member', email: address }, member: address, whose: { email: address } };
}

/** The target's caps and what it has used against them. */
export async function targetCapsBody(store: Store, target: CapTarget) {
  const [record, use] = await Promise.all([
    store.caps.get(target.orgId, target.scope),
    store.caps.use(target.orgId, target.scope),
  ]);
  return scopeCapsBody(target.whose, record, use);
}

/** Sets the target's caps (none: clears them) and announces every key they apply to. */
export async function setTargetCaps(
  store: Store,
  target: CapTarget,
  caps: Caps,
  actor: Actor,
  revocations: RevocationBus | undefined,
): Promise<void> {
  await store.caps.set(target.orgId, target.scope, caps, actor);
  const scope = target.scope;
  const keyIds =
    scope.kind === 'key'
      ? [scope.keyId]
      : (await store.keys.list(target.orgId)).filter((key) => key.createdBy === scope.email).map((key) => key.id);
  for (const keyId of keyIds) await revocations?.publish(keyId);
}
