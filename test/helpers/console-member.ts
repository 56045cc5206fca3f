// A member of the customers' console, signed in the way a person is: asks for a link, takes it from the
// mail the test's SMTP server received, redeems it; then calls the console's API with the session cookie
// and the CSRF token, as the page does.
import { linkIn, mailTo } from './console.js';
import type { RunningSmtp } from './smtp.js';

export interface ConsoleAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ConsoleMember {
  email: string;
  /** `gw_console_session=…`, as the browser sends it. */
  cookie: string;
  csrf: string;
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<ConsoleAnswer<T>>;
}

/** A call to the console without a session (the sign-in routes). */
export async function consoleCall<T = Record<string, unknown>>(
  consoleUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ConsoleAnswer<T>> {
  const response = await fetch(`${consoleUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: 'manual',
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as T, headers: response.headers };
}

/** The token of the first sign-in link mailed to `email` after the first `seen` mails (waits for it). */
export async function linkTokenFor(smtp: RunningSmtp, email: string, seen = 0): Promise<string> {
  return linkIn(await mailTo(smtp, email, seen)).token;
}

/** Signs `email` in by e-mail link. */
export async function signInByEmail(consoleUrl: string, smtp: RunningSmtp, email: string): Promise<ConsoleMember> {
  const mailsBefore = smtp.received.length;
  const asked = await consoleCall(consoleUrl, 'POST', '/console/sign-in/email', { email });
  if (asked.status !== 202) throw new Error(`asking for a link: ${asked.status} ${JSON.stringify(asked.body)}`);
  const token = await linkTokenFor(smtp, email, mailsBefore);
  return redeemLink(consoleUrl, email, token);
}

/** Redeems a link's token; throws unless it signs in. */
export async function redeemLink(consoleUrl: string, email: string, token: string): Promise<ConsoleMember> {
  const redeemed = await consoleCall<{ csrf_token: string }>(consoleUrl, 'POST', '/console/sign-in/link', { token });
  if (redeemed.status !== 200)
    throw new Error(`redeeming the link: ${redeemed.status} ${JSON.stringify(redeemed.body)}`);
  const cookie = redeemed.headers.get('set-cookie')!.split(';')[0]!;
  return memberWith(consoleUrl, email, cookie, redeemed.body.csrf_token);
}

/** A member's calls with a given cookie and CSRF token (to try one session on another node). */
export function memberWith(consoleUrl: string, email: string, cookie: string, csrf: string): ConsoleMember {
  return {
    email,
    cookie,
    csrf,
    call: (method, path, body) =>
      consoleCall(consoleUrl, method, path, body, {
        cookie,
        ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }),
      }),
  };
}
