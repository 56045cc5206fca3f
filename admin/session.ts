// Dashboard sessions: a random 32-byte id in an HttpOnly, SameSite=Strict cookie, kept in memory until
// `ttlMs` after login, each with its own CSRF token that state-changing requests must echo in a header.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { secretMatcher } from './token.js';

export const SESSION_COOKIE = 'gw_admin_session';

export interface Session {
  id: string;
  /** Sent back by login and GET /admin/session; the page echoes it as `x-csrf-token`. */
  csrfToken: string;
  expiresAt: number;
  /** Whether a presented CSRF token is this session's, in constant time. */
  csrfMatches(presented: string): boolean;
}

export class Sessions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  create(): Session {
    this.sweep();
    const csrfToken = randomBytes(32).toString('base64url');
    const session: Session = {
      id: randomBytes(32).toString('base64url'),
      csrfToken,
      expiresAt: this.now() + this.ttlMs,
      csrfMatches: secretMatcher(csrfToken),
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session the request's cookie names, or undefined. */
  fromRequest(req: IncomingMessage): Session | undefined {
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  delete(session: Session): void {
    this.sessions.delete(session.id);
  }

  get size(): number {
    return this.sessions.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}

/** The Set-Cookie value for a session; `Secure` when the browser reached us over TLS. */
export function sessionCookie(session: Session, secure: boolean, now: number = Date.now()): string {
  const maxAge = Math.max(0, Math.floor((session.expiresAt - now) / 1000));
  return `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? '; Secure' : ''}`;
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
