// The dashboard in a real headless Chromium: log in with the admin token, pick an organization, see its
// balance, spend and tier, create a key that is shown once, use it, revoke it through the page's own
// confirmation, and see the gateway refuse it at once.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

const TOKEN = 'dashboard-token-for-tests-0123456789';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let stack: Stack;
let browser: Browser;
let adminUrl: string;

t.before(async () => {
  stack = await startStack({
    yaml: 'plugins:\n  - name: auth\n    options: { cache_ttl_ms: 5000 }\n',
    env: { GATEWAY_ADMIN_TOKEN: TOKEN, GATEWAY_ADMIN_PORT: '0' },
  });
  adminUrl = stack.gateway.adminUrl!;
  const bearer = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  await fetch(`${adminUrl}/admin/v1/orgs`, { method: 'POST', headers: bearer, body: JSON.stringify({ name: 'other' }) });
  await fetch(`${adminUrl}/admin/v1/orgs`, { method: 'POST', headers: bearer, body: JSON.stringify({ name: 'acme' }) });
  await fetch(`${adminUrl}/admin/v1/orgs/acme/credits`, { method: 'POST', headers: bearer, body: JSON.stringify({ amount: '10' }) });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});
t.teardown(async () => {
  await browser?.close();
  await stack?.close();
});

/** A fresh browser profile with one page; native dialogs (window.confirm) and page errors fail the test. */
async function openPage(t: Test): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
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
    if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return { page, context, problems };
}

const byTestId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

async function textOf(page: Page, id: string): Promise<string> {
  const locator = byTestId(page, id);
  await locator.waitFor({ state: 'visible' });
  return (await locator.textContent())?.trim() ?? '';
}

/** Whether the key appears anywhere in the page: its markup, its text, or any field's value. */
const pageHolds = (page: Page, key: string): Promise<boolean> =>
  page.evaluate(
    (secret) => document.documentElement.outerHTML.includes(secret) || document.body.innerText.includes(secret) || [...document.querySelectorAll('input, textarea')].some((field) => (field as HTMLInputElement).value.includes(secret)),
    key,
  );

const chat = async (key: string): Promise<number> =>
  (
    await fetch(`${stack.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] }),
    })
  ).status;

async function logIn(page: Page, token: string): Promise<void> {
  await page.goto(adminUrl + '/');
  await byTestId(page, 'login-token').fill(token);
  await byTestId(page, 'login-submit').click();
}

t.test('a wrong token at login shows an error and stays on the login page', async (t) => {
  const { page, problems } = await openPage(t);
  await logIn(page, 'not-the-admin-token-at-all');
  t.match(await textOf(page, 'login-error'), /not the admin token/);
  t.ok(await byTestId(page, 'login-view').isVisible());
  t.notOk(await byTestId(page, 'orgs-view').isVisible());
  t.same(problems, []);
});

t.test('the dashboard flow: log in, pick the org, see its numbers, create a key shown once, use it, revoke it with confirmation', async (t) => {
  const { page, problems } = await openPage(t);
  await logIn(page, TOKEN);

  // The org picker lists the organizations; pick acme.
  await byTestId(page, 'org-list').waitFor();
  t.same(await byTestId(page, 'org-link').evaluateAll((links) => links.map((link) => link.getAttribute('data-org'))), ['other', 'acme']);
  await page.locator('[data-testid="org-link"][data-org="acme"]').click();

  t.equal(await textOf(page, 'org-name'), 'acme');
  t.equal(await textOf(page, 'org-balance'), '10 credits');
  t.equal(await textOf(page, 'org-spent'), '0 credits');
  t.equal(await textOf(page, 'org-tier'), 'Start');
  t.equal(await textOf(page, 'tier-rpm'), '1,000');
  t.equal(await textOf(page, 'tier-itpm'), '2,000,000');
  t.equal(await textOf(page, 'tier-otpm'), '400,000');
  t.ok(await byTestId(page, 'key-empty').isVisible(), 'no keys yet');

  // Create a key: the full key is shown once, with the warning and a working Copy button.
  await byTestId(page, 'key-name').fill('laptop');
  await byTestId(page, 'key-create').click();
  await byTestId(page, 'new-key').waitFor({ state: 'visible' });
  const key = await byTestId(page, 'new-key-value').inputValue();
  t.match(key, /^sk-svc-[A-Za-z0-9_-]{43}$/);
  t.match(await textOf(page, 'new-key-warning'), /will not be shown again/);
  await byTestId(page, 'new-key-copy').click();
  t.match(await textOf(page, 'new-key-copied'), /Copied|Selected/);
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the clipboard holds the key');

  // The list shows it by its last 4.
  const row = page.locator('[data-testid="key-row"][data-key-name="laptop"]');
  await row.waitFor();
  t.equal((await row.locator('[data-testid="key-row-last4"]').textContent())?.trim(), `…${key.slice(-4)}`);
  t.equal((await row.locator('[data-testid="key-row-status"]').textContent())?.trim(), 'active');

  t.equal(await chat(key), 200, 'the key works against the gateway');

  // Leaving the org, coming back and reloading: the key is gone from the page for good.
  await byTestId(page, 'back').click();
  await byTestId(page, 'orgs-view').waitFor({ state: 'visible' });
  t.notOk(await pageHolds(page, key), 'gone after leaving the org');
  await page.locator('[data-testid="org-link"][data-org="acme"]').click();
  await row.waitFor();
  t.notOk(await byTestId(page, 'new-key').isVisible());
  t.notOk(await pageHolds(page, key), 'gone when coming back');
  await page.reload();
  await row.waitFor();
  t.equal(await textOf(page, 'org-name'), 'acme', 'the reload stays on the org (and logged in)');
  t.notOk(await pageHolds(page, key), 'gone after a reload');

  // Revoke asks first, in the page; Cancel keeps the key.
  await row.locator('[data-testid="key-revoke"]').click();
  t.match(await textOf(page, 'confirm-text'), /laptop/);
  await byTestId(page, 'confirm-cancel').click();
  await byTestId(page, 'confirm-dialog').waitFor({ state: 'hidden' });
  t.equal((await row.locator('[data-testid="key-row-status"]').textContent())?.trim(), 'active', 'cancel keeps the key');
  t.equal(await chat(key), 200);

  await row.locator('[data-testid="key-revoke"]').click();
  await byTestId(page, 'confirm-ok').click();
  const revokedAt = Date.now();
  await row.locator('[data-testid="key-row-status"]', { hasText: 'revoked' }).waitFor();
  t.equal(await row.locator('[data-testid="key-revoke"]').count(), 0, 'no revoke button on a revoked key');

  let status = await chat(key);
  while (status !== 401 && Date.now() - revokedAt < 5000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await chat(key);
  }
  t.equal(status, 401, 'the gateway refuses the revoked key');
  const took = Date.now() - revokedAt;
  t.ok(took < 5000, `within 5 s (took ${took} ms)`);
  // The auth cache trusts a key for 5 s; far less means the revocation bus dropped it.
  t.ok(took < 2000, `well before the 5 s cache entry expires (took ${took} ms)`);
  t.same(problems, [], 'no native dialogs, page errors or console errors (CSP included)');
});

t.test('logging out returns to the login page and the session no longer works', async (t) => {
  const { page, context } = await openPage(t);
  await logIn(page, TOKEN);
  await byTestId(page, 'org-list').waitFor();
  await byTestId(page, 'logout').click();
  await byTestId(page, 'login-view').waitFor({ state: 'visible' });
  const cookies = await context.cookies();
  t.same(cookies.filter((cookie) => cookie.name === 'gw_admin_session'), [], 'the cookie is cleared');
  await page.reload();
  await byTestId(page, 'login-view').waitFor({ state: 'visible' });
});
