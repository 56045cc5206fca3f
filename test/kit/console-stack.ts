// A test file's members' console in one line: an SMTP server on loopback, a gateway with the console on (its
// e-mail going to that server) over a fresh store, and a headless Chromium; closed in the reverse order when the
// file's tests are over.
import type { Browser } from 'playwright-core';
import type { Test } from 'tap';
import type { Store } from '../../store/store.js';
import { launchChromium } from '../helpers/browser.js';
import { consoleEnvironment } from '../helpers/console.js';
import { startSmtp, type RunningSmtp } from '../helpers/smtp.js';
import type { Stack, StackOptions } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { stackForFile } from './file-stack.js';

export interface ConsoleStack {
  smtp: RunningSmtp;
  stack: Stack;
  /** The gateway's store (to set up organizations and keys). */
  store: Store;
  consoleUrl: string;
  browser: Browser;
}

/** The members of `acme` the console tests sign in as: Ada its admin, Bob and Cy members. */
export const ACME_MEMBERS = [
  { email: 'ada@acme.example', role: 'admin' },
  { email: 'bob@acme.example', role: 'member' },
  { email: 'cy@acme.example', role: 'member' },
] as const;

export async function consoleStackForFile(
  t: Pick<Test, 'teardown'>,
  options: StackOptions = {},
): Promise<ConsoleStack> {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const env = { ...consoleEnvironment(smtp), ...(await freshStoreEnvironment()), ...options.env };
  const stack = await stackForFile(t, { ...options, env });
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  return { smtp, stack, store: await stack.store(), consoleUrl: stack.gateway.consoleUrl!, browser };
}
