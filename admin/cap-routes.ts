// The cap routes, the same under the admin API (/admin/v1/orgs/:org/…, the operator) and the member API
// (/console/v1/orgs/:org/…): an organization's caps, and one key's or one member's caps with their use,
// set (PUT, the body replaces them all), cleared (DELETE) and read (GET). The operator and an
// organization's admins read and change any; another member reads its own keys' and its own, and changes
// none (403). Another organization's key or member is a 404; bad input a 400 naming the field.
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../store/audit-log.js';
import type { RevocationBus } from '../store/revocations.js';
import type { Store } from '../store/store.js';
import { capsBody, capsRecordBody } from './cap-bodies.js';
import { keyTarget, memberTarget, setTargetCaps, targetCapsBody, type CapTarget } from './cap-target.js';
import { AdminError } from './errors.js';
import { readObject } from './http.js';
import type { AdminRoute } from './routes.js';

export interface CapAccess {
  orgId: string;
  store: Store;
  actor: Actor;
  /** A member who is not an organization admin, by e-mail: reads only its own; undefined for those who manage caps. */
  ownOnly: string | undefined;
}

export interface CapRoutesOptions {
  /** The routes' prefix up to the organization: `/admin/v1/orgs` or `/console/v1/orgs`. */
  prefix: string;
  /** The organization the path names, if this request may see it (else it throws: 401, 404). */
  access(req: IncomingMessage, org: string): Promise<CapAccess>;
  /** Where a change is announced, so that every node's auth cache drops the keys it applies to. */
  revocations: RevocationBus;
}

type TargetOf = (store: Store, orgId: string, id: string) => Promise<CapTarget>;

export function capRoutes(options: CapRoutesOptions): AdminRoute[] {
  const base = `^${options.prefix.replace(/\//g, '\\/')}\\/([^/]+)`;
  const path = (rest: string) => new RegExp(`${base}${rest}$`);

  /** The target, if the caller may read its caps (a member: its own, or one of its keys). */
  const readable = async (req: IncomingMessage, org: string, id: string, targetOf: TargetOf) => {
    const access = await options.access(req, org);
    const target = await targetOf(access.store, access.orgId, id);
    if (access.ownOnly !== undefined && target.member !== access.ownOnly)
      throw new AdminError('forbidden', "only an organization admin can read other members' caps");
    return { access, target };
  };
  /** The target, if the caller may change caps. */
  const changeable = async (req: IncomingMessage, org: string, id: string, targetOf: TargetOf) => {
    const access = await options.access(req, org);
    if (access.ownOnly !== undefined) throw new AdminError('forbidden', 'only an organization admin can change caps');
    return { access, target: await targetOf(access.store, access.orgId, id) };
  };

  const scopeRoutes = (segment: string, targetOf: TargetOf): AdminRoute[] => [
    {
      method: 'GET',
      path: path(`\\/${segment}\\/([^/]+)\\/caps`),
      async handle({ req, params: [org, id] }) {
        const { access, target } = await readable(req, org!, id!, targetOf);
        return { status: 200, body: await targetCapsBody(access.store, target) };
      },
    },
    {
      method: 'PUT',
      path: path(`\\/${segment}\\/([^/]+)\\/caps`),
      async handle({ req, params: [org, id] }) {
        const { access, target } = await changeable(req, org!, id!, targetOf);
        const caps = capsBody(await readObject(req));
        await setTargetCaps(access.store, target, caps, access.actor, options.revocations);
        return { status: 200, body: await targetCapsBody(access.store, target) };
      },
    },
    {
      method: 'DELETE',
      path: path(`\\/${segment}\\/([^/]+)\\/caps`),
      async handle({ req, params: [org, id] }) {
        const { access, target } = await changeable(req, org!, id!, targetOf);
        await setTargetCaps(access.store, target, {}, access.actor, options.revocations);
        return { status: 200, body: await targetCapsBody(access.store, target) };
      },
    },
  ];

  return [
    {
      method: 'GET',
      path: path('\\/caps'),
      async handle({ req, params: [org] }) {
        const { orgId, store, ownOnly } = await options.access(req, org!);
        let records = await store.caps.list(orgId);
        if (ownOnly !== undefined) {
          const own = new Set(
            (await store.keys.list(orgId)).filter((key) => key.createdBy === ownOnly).map((key) => key.id),
          );
          records = records.filter(({ scope }) =>
            scope.kind === 'key' ? own.has(scope.keyId) : scope.email === ownOnly,
          );
        }
        return { status: 200, body: { caps: records.map(capsRecordBody) } };
      },
    },
    ...scopeRoutes('keys', keyTarget),
    ...scopeRoutes('members', memberTarget),
  ];
}
