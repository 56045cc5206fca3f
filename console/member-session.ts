// A member's console session: the `gw_console_session` cookie (admin/session.ts, kind 'member'), and
// the guard of the member API: signed in, and a change carries the session's CSRF token.
import type { IncomingMessage } from 'node:http';
import { AdminError } from '../admin/errors.js';
import { checkCsrfOnChange } from '../admin/guard.js';
import type { AddressOf } from '../admin/client-address.js';
import { Sessions, type SignedIn } from '../admin/session.js';
import type { Actor } from '../store/audit-log.js';
import type { Store } from '../store/store.js';

export const CONSOLE_SESSION_COOKIE = 'gw_console_session';

export interface SignedInMember extends SignedIn {
  email: string;
}

export function memberSessions(ttlMs: number, store: () => Promise<Store>, addressOf: AddressOf): Sessions {
  return new Sessions({ cookie: CONSOLE_SESSION_COOKIE, kind: 'member', ttlMs }, store, addressOf);
}

/** The signed-in member of a request to the member API; a 401 when there is none. */
export async function requireMember(sessions: Sessions, req: IncomingMessage): Promise<SignedInMember> {
  const signedIn = await sessions.fromRequest(req);
  if (signedIn === undefined || signedIn.session.email === null)
    throw new AdminError('unauthorized', 'sign in to the console first');
  checkCsrfOnChange(req, signedIn.session);
  return { ...signedIn, email: signedIn.session.email };
}

/** The audit log's actor for a member's change. */
export function memberActor(member: SignedInMember, req: IncomingMessage, addressOf: AddressOf): Actor {
  return { who: member.email, address: addressOf(req) };
}
