// Browser sessions of one kind (the operator's dashboard, a member's console): a cookie that holds a
// random 32-byte id (HttpOnly, SameSite=Strict, Secure over TLS) and a row in the store (store/web-sessions.ts)
// that holds its SHA-256, so every node of a fleet accepts the session and a sign-out ends it on all of them.
// Each session has its CSRF token, which state-changing requests must echo in a header.
import type { IncomingMessage } from 'node:http';
import type { Store } from '../store/store.js';
import type { WebSession } from '../store/web-sessions.js';
import type { WebSessionKind } from '../store/schema.js';
import { clientAddressOf, type AddressOf } from './client-address.js';
import { isHttps } from './http.js';
import { secretMatcher } from './token.js';

export interface SessionKind {
  /** The cookie's name: `gw_admin_session`, `gw_console_session`. */
  cookie: string;
  kind: WebSessionKind;
  ttlMs: number;
}

export interface SignedIn {
  /** The cookie's value. */
  id: string;
  session: WebSession;
}

export class Sessions {
  constructor(
    private readonly kind: SessionKind,
    private readonly store: () => Promise<Store>,
    private readonly addressOf: AddressOf = clientAddressOf(),
  ) {}

  /** A new session for the operator (email null) or a member, and the Set-Cookie value that carries it. */
  async create(email: string | null, req: IncomingMessage): Promise<{ session: WebSession; setCookie: string }> {
    const { id, session } = await (
      await this.store()
    ).sessions.create(this.kind.kind, email, this.kind.ttlMs, this.addressOf(req));
    return { session, setCookie: this.#cookie(id, session.expiresAt, isHttps(req)) };
  }

  /** The live session the request's cookie names, or undefined. */
  async fromRequest(req: IncomingMessage): Promise<SignedIn | undefined> {
    const id = cookieValue(req.headers.cookie, this.kind.cookie);
    if (id === undefined || id === '') return undefined;
    const session = await (await this.store()).sessions.find(id, this.kind.kind);
    return session && { id, session };
  }

  /** Ends the session on every node. */
  async end(signedIn: SignedIn): Promise<void> {
    await (await this.store()).sessions.delete(signedIn.id);
  }

  /** The Set-Cookie value that removes the cookie. */
  clearedCookie(req: IncomingMessage): string {
    return `${this.kind.cookie}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${isHttps(req) ? '; Secure' : ''}`;
  }

  #cookie(id: string, expiresAt: number, secure: boolean): string {
    const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    return `${this.kind.cookie}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
  }
}

/** Whether a presented CSRF token is the session's, in constant time. */
export function csrfMatches(session: WebSession, presented: string): boolean {
  return secretMatcher(session.csrfToken)(presented);
}

/** The value of the cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
