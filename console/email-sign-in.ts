// Sign-in by e-mail link. POST /console/sign-in/email asks for a link: the answer is the same 202
// whether the address is a member or not, and the link is made and sent after the answer, so neither
// the answer nor its timing tells. Requests are throttled per e-mail address and per client address,
// counted in the store (a fleet counts together). POST /console/sign-in/link redeems a link once.
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { AdminError } from '../admin/errors.js';
import { checkOrigin } from '../admin/guard.js';
import type { AddressOf } from '../admin/client-address.js';
import { readObject } from '../admin/http.js';
import type { Sessions } from '../admin/session.js';
import type { ConsoleConfig } from '../config/types.js';
import type { Store } from '../store/store.js';
import type { SignInMail } from './sign-in-mail.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface EmailSignInOptions {
  store: () => Promise<Store>;
  sessions: Sessions;
  config: ConsoleConfig;
  mail: SignInMail;
  /** Where members reach the console: the links point there. */
  publicUrl: string;
  /** The client's address (the throttle counts per client). */
  addressOf: AddressOf;
  log: Logger;
}

export class EmailSignIn {
  readonly #options: EmailSignInOptions;
  readonly #sending = new Set<Promise<void>>();

  constructor(options: EmailSignInOptions) {
    this.#options = options;
  }

  /** Throttles, then (after the answer) e-mails a link when the address is a member. */
  async request(req: IncomingMessage): Promise<void> {
    checkOrigin(req);
    const email = emailField(await readObject(req), 'email');
    const { throttle } = this.#options.config;
    const store = await this.#options.store();
    const address = this.#options.addressOf(req) ?? 'unknown';
    const counts = await store.signInRequests.counts(email, address, throttle.window_ms);
    if (counts.email >= throttle.per_email || counts.address >= throttle.per_address) {
      const retryAfterS = Math.ceil(throttle.window_ms / 1000);
      throw new AdminError(
        'too_many_requests',
        `too many sign-in links asked for: retry after ${retryAfterS} s`,
        undefined,
        { 'retry-after': String(retryAfterS) },
      );
    }
    await store.signInRequests.record(email, address, throttle.window_ms);
    this.#background(async () => {
      if ((await store.orgs.memberships(email)).length === 0) return;
      await this.send(email);
    });
  }

  /** Makes a link for `email` and sends it (with the invitation's words when there is one). */
  async send(email: string, invitation?: { orgName: string; by: string }): Promise<void> {
    const store = await this.#options.store();
    const token = await store.signInLinks.issue(email, this.#options.config.link_ttl_ms);
    await this.#options.mail.send(email, `${this.#options.publicUrl}/#/link/${token}`, invitation);
  }

  /** E-mails an invitation (a sign-in link with who invited to what); whether it went out. */
  async invite(email: string, invitation: { orgName: string; by: string }): Promise<boolean> {
    try {
      await this.send(email, invitation);
      return true;
    } catch (error) {
      this.#options.log.error(
        { err: error instanceof Error ? error.message : String(error) },
        'console: an invitation could not be sent',
      );
      return false;
    }
  }

  /** Redeems a link: the member's new session (a 400 `link_invalid` for a used, expired or unknown link). */
  async redeem(
    req: IncomingMessage,
  ): Promise<{ email: string; setCookie: string; csrfToken: string; expiresAt: number }> {
    checkOrigin(req);
    const body = await readObject(req);
    const token = body.token;
    if (typeof token !== 'string' || token === '' || token.length > 200)
      throw new AdminError('invalid_request', "'token' must be the token of a sign-in link", 'token');
    const store = await this.#options.store();
    const email = await store.signInLinks.redeem(token);
    // A member removed since the link was sent has nothing to sign in to.
    if (email === undefined || (await store.orgs.memberships(email)).length === 0)
      throw new AdminError('link_invalid', 'this sign-in link was used, has expired or is unknown: ask for a new one');
    const { session, setCookie } = await this.#options.sessions.create(email, req);
    return { email, setCookie, csrfToken: session.csrfToken, expiresAt: session.expiresAt };
  }

  /** Waits for the links under way. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#sending]);
  }

  #background(work: () => Promise<void>): void {
    const sending = work()
      .catch((error: unknown) =>
        this.#options.log.error(
          { err: error instanceof Error ? error.message : String(error) },
          'console: a sign-in link could not be sent',
        ),
      )
      .finally(() => this.#sending.delete(sending));
    this.#sending.add(sending);
  }
}

/** An e-mail address from the body, trimmed and lower-cased; a 400 naming the field otherwise. */
export function emailField(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  const email = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!EMAIL.test(email) || email.length > 254)
    throw new AdminError('invalid_request', `'${field}' must be an e-mail address`, field);
  return email;
}
