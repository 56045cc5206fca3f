// Which organization a member may see: one it belongs to, named by its id. Any other id, existing or
// not, is the same 404, so that nobody learns which organizations exist.
import { AdminError } from '../admin/errors.js';
import type { Org } from '../store/orgs.js';
import type { MemberRole } from '../store/schema.js';
import type { Store } from '../store/store.js';

export interface OrgAccess {
  org: Org;
  role: MemberRole;
}

export async function orgOfMember(store: Store, orgId: string, email: string): Promise<OrgAccess> {
  const org = orgId.startsWith('org_') ? await store.orgs.find(orgId) : undefined;
  const role = org && (await store.orgs.roleOf(org.id, email));
  if (org === undefined || role === undefined) throw new AdminError('org_not_found', `no organization '${orgId}'`);
  return { org, role };
}

/** An organization admin's action: a member is told it needs the admin role. */
export function requireAdmin(access: OrgAccess, what: string): void {
  if (access.role !== 'admin') throw new AdminError('forbidden', `only an organization admin can ${what}`);
}
