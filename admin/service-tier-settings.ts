// An organization's service-tier settings as the admin API and the CLI set them (docs/service-tiers.md): stored
// with their audit entry (Orgs.setServiceTiers), then every key of the organization is announced on the revocation
// bus: each node's auth cache drops the key's entry, which holds the settings, so they apply from the next request,
// not at the entry's TTL (as a change of caps does, cap-target.ts).
import type { Actor } from '../store/audit-log.js';
import type { OrgServiceTiers } from '../store/org-service-tiers.js';
import type { Org } from '../store/orgs.js';
import type { RevocationBus } from '../store/revocations.js';
import type { Store } from '../store/store.js';

/** Sets the settings of the organization (a name or an id) and announces its keys; returns the org after. */
export async function setOrgServiceTiers(
  store: Store,
  nameOrId: string,
  settings: OrgServiceTiers,
  actor: Actor,
  revocations: RevocationBus | undefined,
): Promise<Org> {
  const org = await store.orgs.setServiceTiers(nameOrId, settings, actor);
  for (const key of await store.keys.list(org.id)) await revocations?.publish(key.id);
  return org;
}
