// The operator's additions to the dashboard, in a real headless Chromium: creating an organization
// (with a first member) and adding credits in the page, the organization's members, the keys'
// creator, and its audit log saying who did what from which address.
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { byTestId, launchChromium, openPage, textOf } from '../helpers/browser.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { startStack, type Stack } from '../helpers/stack.js';

const TOKEN = 'dashboard-operator-token-0123456789';

let stack: Stack;
let browser: Browser;
let adminUrl: string;

t.before(async () => {
  stack = await startStack({
    env: { GATEWAY_ADMIN_TOKEN: TOKEN, GATEWAY_ADMIN_PORT: '0', ...(await freshStoreEnvironment()) },
  });
  adminUrl = stack.gateway.adminUrl!;
  browser = await launchChromium();
});
t.teardown(async () => {
  await browser?.close();
  await stack?.close();
});

async function logIn(page: Page): Promise<void> {
  await page.goto(adminUrl + '/');
  await byTestId(page, 'login-token').fill(TOKEN);
  await byTestId(page, 'login-submit').click();
  await byTestId(page, 'orgs-view').waitFor({ state: 'visible' });
}

/** The audit log's rows as [who, from, what, on what], newest first. */
const auditOf = (page: Page): Promise<string[][]> =>
  byTestId(page, 'audit-row').evaluateAll((rows) =>
    rows.map((row) =>
      ['audit-actor', 'audit-address', 'audit-action', 'audit-subject'].map(
        (id) => row.querySelector(`[data-testid="${id}"]`)?.textContent ?? '',
      ),
    ),
  );

t.test('the operator creates an organization with its first member in the page and lands on it', async (t) => {
  const { page, problems } = await openPage(t, browser, /status of (401|400|409)/);
  await logIn(page);

  // A name the API refuses: its message, naming the field.
  await byTestId(page, 'org-new-name').fill('org_taken_by_ids');
  await byTestId(page, 'org-create').click();
  t.match(await textOf(page, 'org-error'), /^Name: .*may not start with 'org_'/);

  await byTestId(page, 'org-new-name').fill('initech');
  await byTestId(page, 'org-new-email').fill('Peter@Initech.example');
  await byTestId(page, 'org-new-role').selectOption('admin');
  await byTestId(page, 'org-create').click();
  await byTestId(page, 'org-view').waitFor({ state: 'visible' });
  t.equal(await textOf(page, 'org-name'), 'initech');
  t.equal(await textOf(page, 'org-balance'), '0 credits');
  t.same(
    await byTestId(page, 'member-row').evaluateAll((rows) =>
      rows.map((row) => [
        row.querySelector('[data-testid="member-email"]')?.textContent,
        row.querySelector('[data-testid="member-role"]')?.textContent,
      ]),
    ),
    [['peter@initech.example', 'admin']],
    'the first member, as the store keeps the address',
  );

  // The same name again is refused, and the organizations page lists the new one.
  await byTestId(page, 'back').click();
  await page.locator('[data-testid="org-link"][data-org="initech"]').waitFor();
  await byTestId(page, 'org-new-name').fill('initech');
  await byTestId(page, 'org-create').click();
  t.match(await textOf(page, 'org-error'), /^an organization named 'initech' exists/);
  t.same(problems, []);
});

t.test(
  'the operator adds credits in the page: the balance updates; a bad amount shows the field’s error',
  async (t) => {
    const { page, problems } = await openPage(t, browser, /status of (401|400)/);
    await logIn(page);
    await byTestId(page, 'org-new-name').fill('hooli');
    await byTestId(page, 'org-create').click();
    await byTestId(page, 'org-view').waitFor({ state: 'visible' });

    await byTestId(page, 'credits-amount').fill('12.5');
    await byTestId(page, 'credits-add').click();
    await page.locator('[data-testid="org-balance"]', { hasText: '12.5 credits' }).waitFor();
    t.equal(await textOf(page, 'credits-done'), 'Added 12.5 credits.');
    t.equal(await byTestId(page, 'credits-amount').inputValue(), '', 'the field is emptied');

    // Not a number: the page refuses it before asking the API.
    await byTestId(page, 'credits-amount').fill('ten');
    await byTestId(page, 'credits-add').click();
    t.match(await textOf(page, 'credits-error'), /^Amount: a number of credits/);
    t.equal(await byTestId(page, 'credits-amount').getAttribute('aria-invalid'), 'true');

    // A number the API refuses: the API's message, naming the field.
    await byTestId(page, 'credits-amount').fill('0');
    await byTestId(page, 'credits-add').click();
    await page.locator('[data-testid="credits-error"]', { hasText: 'positive' }).waitFor();
    t.match(await textOf(page, 'credits-error'), /^Amount: credits to add must be a positive/);
    t.equal(await textOf(page, 'org-balance'), '12.5 credits', 'the balance is unchanged');

    await page.reload();
    t.equal(await textOf(page, 'org-balance'), '12.5 credits', 'the store holds it');
    t.same(problems, []);
  },
);

t.test(
  'the audit log shows org.created and credits.added by operator from 127.0.0.1, and keys show who created them',
  async (t) => {
    const { page, problems } = await openPage(t, browser);
    await logIn(page);
    await byTestId(page, 'org-new-name').fill('umbrella');
    await byTestId(page, 'org-new-email').fill('alice@umbrella.example');
    await byTestId(page, 'org-new-role').selectOption('member');
    await byTestId(page, 'org-create').click();
    await byTestId(page, 'org-view').waitFor({ state: 'visible' });
    await byTestId(page, 'credits-amount').fill('3');
    await byTestId(page, 'credits-add').click();
    await page.locator('[data-testid="audit-row"][data-action="credits.added"]').waitFor();

    await byTestId(page, 'key-name').fill('ci');
    await byTestId(page, 'key-create').click();
    const row = page.locator('[data-testid="key-row"][data-key-name="ci"]');
    await row.waitFor();
    t.equal((await row.locator('[data-testid="key-row-created-by"]').textContent())?.trim(), 'operator');
    await page.locator('[data-testid="audit-row"][data-action="key.created"]').waitFor();

    const keyId = await row.getAttribute('data-key-id');
    const entries = await auditOf(page);
    t.same(entries.slice(0, 2), [
      ['operator', '127.0.0.1', 'Key created', `“ci” (${keyId})`],
      ['operator', '127.0.0.1', 'Credits added', '+3 credits'],
    ]);
    // Written in one transaction, often within one millisecond: their order is the store's tie-break.
    t.same(entries.slice(2).sort(), [
      ['operator', '127.0.0.1', 'Member added', 'alice@umbrella.example as member'],
      ['operator', '127.0.0.1', 'Organization created', 'umbrella'],
    ]);
    t.same(problems, []);
  },
);
