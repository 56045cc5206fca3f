// Headless Chromium (the system's /usr/bin/chromium through playwright-core) for the pages' tests: a
// browser, and pages in fresh profiles that record what must never happen (a native dialog, a page
// error, a console error other than the expected refusals).
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  /** Native dialogs, page errors and unexpected console errors, as they happened. */
  problems: string[];
}

/**
 * A fresh browser profile (closed in the test's teardown) with one page. `expected` matches the console
 * errors the test provokes on purpose (Chromium logs every 4xx answer to a fetch).
 */
export async function openPage(t: Test, browser: Browser, expected: RegExp = /status of 401/): Promise<OpenedPage> {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  t.teardown(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('dialog', (dialog) => {
    problems.push(`native dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return { page, context, problems };
}

export const byTestId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

/** The trimmed text of a visible element, once it is visible. */
export async function textOf(page: Page, id: string): Promise<string> {
  const locator = byTestId(page, id);
  await locator.waitFor({ state: 'visible' });
  return (await locator.textContent())?.trim() ?? '';
}
