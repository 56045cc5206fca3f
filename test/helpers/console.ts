// The members' console for the pages' tests: a gateway with the console on and its e-mail going to a
// real SMTP server on loopback (test/helpers/smtp.ts), and signing in the way a member does, by asking
// the page for a link and opening the one the e-mail holds.
import type { Browser, Page } from 'playwright-core';
import type { Test } from 'tap';
import type { ReceivedMail, RunningSmtp } from './smtp.js';
import { byTestId, openPage, type OpenedPage } from './browser.js';

/** The variables that turn the console on (an ephemeral port) and send its e-mail to `smtp`. */
export function consoleEnvironment(smtp: RunningSmtp): Record<string, string> {
  return { GATEWAY_CONSOLE_PORT: '0', GATEWAY_SMTP_URL: smtp.url };
}

/** The first e-mail to `address` after the first `seen` the server received (already in, or the next to come). */
export function mailTo(smtp: RunningSmtp, address: string, seen = 0): Promise<ReceivedMail> {
  return smtp.mail((mail) => smtp.received.indexOf(mail) >= seen && mail.to.includes(address));
}

/** The sign-in link an e-mail holds: `<public_url>/#/link/<token>`. */
export function linkIn(mail: ReceivedMail): { url: string; token: string } {
  const match = /(https?:\/\/\S+?)\/#\/link\/([A-Za-z0-9_-]+)/.exec(mail.text);
  if (match === null) throw new Error(`no sign-in link in: ${mail.text}`);
  return { url: match[0], token: match[2]! };
}

/** Asks the sign-in page for a link to `email`; the e-mail it sends (the first after the call). */
export async function requestLink(page: Page, consoleUrl: string, smtp: RunningSmtp, email: string) {
  const seen = smtp.received.length;
  await page.goto(`${consoleUrl}/#/sign-in`);
  await byTestId(page, 'sign-in-email').fill(email);
  await byTestId(page, 'sign-in-submit').click();
  await byTestId(page, 'sign-in-sent').waitFor({ state: 'visible' });
  return mailTo(smtp, email, seen);
}

/** Signs `email` in through an e-mailed link; resolves once the page shows an organization or the list. */
export async function signIn(page: Page, consoleUrl: string, smtp: RunningSmtp, email: string): Promise<void> {
  const { token } = linkIn(await requestLink(page, consoleUrl, smtp, email));
  await page.goto(`${consoleUrl}/#/link/${token}`);
  await page.locator('[data-testid="org-view"]:visible, [data-testid="orgs-view"]:visible').waitFor();
}

/** A fresh page signed in as `email`; `expected` matches the refusals the test provokes (see openPage). */
export async function signedInPage(
  t: Test,
  browser: Browser,
  to: { consoleUrl: string; smtp: RunningSmtp; email: string; expected: RegExp },
): Promise<OpenedPage> {
  const opened = await openPage(t, browser, to.expected);
  await signIn(opened.page, to.consoleUrl, to.smtp, to.email);
  return opened;
}
