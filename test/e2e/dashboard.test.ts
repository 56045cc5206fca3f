// The dashboard in a real headless Chromium: log in with the admin token, pick an organization, see its
// balance, spend and tier, create a key that is shown once, use it, revoke it through the page's own
// confirmation, and see the gateway refuse it at once; and the usage panel's chart and totals.
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import type { Store } from '../../store/store.js';
import type { NewUsageRow } from '../../store/schema.js';
import { byTestId, launchChromium, openPage as openBrowserPage, textOf } from '../helpers/browser.js';
import { TestClock } from '../helpers/clock.js';
import { chatStatus } from '../helpers/key-use.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { startStack, type Stack } from '../helpers/stack.js';

// The page's own globals, as the callbacks that page.evaluate runs in the browser use them. Declared here rather
// than through the DOM lib, which would reach every test file (and turn fetch's `response.json()` into `any`).
declare const document: {
  documentElement: { outerHTML: string };
  body: { innerText: string };
  querySelectorAll(selectors: 'input, textarea'): Iterable<{ value: string }>;
};
declare const navigator: { clipboard: { readText(): Promise<string> } };

const TOKEN = 'dashboard-token-for-tests-0123456789';

let stack: Stack;
let store: Store;
let browser: Browser;
let adminUrl: string;

t.before(async () => {
  stack = await startStack({
    yaml: 'plugins:\n  - name: auth\n    options: { cache_ttl_ms: 5000 }\n',
    env: { GATEWAY_ADMIN_TOKEN: TOKEN, GATEWAY_ADMIN_PORT: '0', ...(await freshStoreEnvironment()) },
    // The auth cache's clock stands still: no entry ever expires, so only the revocation bus can drop one.
    now: new TestClock().now,
  });
  adminUrl = stack.gateway.adminUrl!;
  store = await stack.store();
  const bearer = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  await fetch(`${adminUrl}/admin/v1/orgs`, {
    method: 'POST',
    headers: bearer,
    body: JSON.stringify({ name: 'other' }),
  });
  await fetch(`${adminUrl}/admin/v1/orgs`, { method: 'POST', headers: bearer, body: JSON.stringify({ name: 'acme' }) });
  await fetch(`${adminUrl}/admin/v1/orgs/acme/credits`, {
    method: 'POST',
    headers: bearer,
    body: JSON.stringify({ amount: '10' }),
  });
  browser = await launchChromium();
});
t.teardown(async () => {
  await browser?.close();
  await stack?.close();
});

const openPage = (t: Test) => openBrowserPage(t, browser);

/** Whether the key appears anywhere in the page: its markup, its text, or any field's value. */
const pageHolds = (page: Page, key: string): Promise<boolean> =>
  page.evaluate(
    (secret) =>
      document.documentElement.outerHTML.includes(secret) ||
      document.body.innerText.includes(secret) ||
      [...document.querySelectorAll('input, textarea')].some((field) => field.value.includes(secret)),
    key,
  );

const chat = (key: string): Promise<number> => chatStatus(stack.gateway.url, key);

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

t.test(
  'the dashboard flow: log in, pick the org, see its numbers, create a key shown once, use it, revoke it with confirmation',
  async (t) => {
    const { page, problems } = await openPage(t);
    await logIn(page, TOKEN);

    // The org picker lists the organizations; pick acme.
    await byTestId(page, 'org-list').waitFor();
    t.same(
      await byTestId(page, 'org-link').evaluateAll((links) => links.map((link) => link.getAttribute('data-org'))),
      ['other', 'acme'],
    );
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
    t.equal(
      (await row.locator('[data-testid="key-row-status"]').textContent())?.trim(),
      'active',
      'cancel keeps the key',
    );
    t.equal(await chat(key), 200);

    await row.locator('[data-testid="key-revoke"]').click();
    await byTestId(page, 'confirm-ok').click();
    await row.locator('[data-testid="key-row-status"]', { hasText: 'revoked' }).waitFor();
    t.equal(await row.locator('[data-testid="key-revoke"]').count(), 0, 'no revoke button on a revoked key');

    // The admin API announced the revocation before it answered the page: the cache, which would have
    // trusted the key for ever on its still clock, has dropped it.
    t.equal(await chat(key), 401, 'the gateway refuses the revoked key at once');
    t.same(problems, [], 'no native dialogs, page errors or console errors (CSP included)');
  },
);

t.test('logging out returns to the login page and the session no longer works', async (t) => {
  const { page, context } = await openPage(t);
  await logIn(page, TOKEN);
  await byTestId(page, 'org-list').waitFor();
  await byTestId(page, 'logout').click();
  await byTestId(page, 'login-view').waitFor({ state: 'visible' });
  const cookies = await context.cookies();
  t.same(
    cookies.filter((cookie) => cookie.name === 'gw_admin_session'),
    [],
    'the cookie is cleared',
  );
  await page.reload();
  await byTestId(page, 'login-view').waitFor({ state: 'visible' });
});

t.test(
  'the usage panel: a bar per day of the range (zero where nothing was used), a metric switch, tooltips and totals from settled rows only',
  async (t) => {
    const org = await store.orgs.create('busy');
    const keyId = (await store.keys.create('busy', 'seed')).record.id;
    const DAY = 86_400_000;
    const today = Math.floor(Date.now() / DAY) * DAY;
    const date = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
    let n = 0;
    const row = (
      at: number,
      tokens: number,
      searches: number,
      costMicros: number,
      state: 'held' | 'settled' = 'settled',
    ): NewUsageRow => ({
      id: `use_dash_${n++}`,
      org_id: org.id,
      key_id: keyId,
      dialect: 'chat',
      input_tokens: tokens,
      output_tokens: tokens * 2,
      cache_read_tokens: 3,
      cache_write_tokens: 1,
      searches,
      cost_micros: costMicros,
      status: 200,
      duration_ms: 5,
      created_at: at,
      state,
    });
    await store.db
      .insertInto('usage')
      .values([
        row(today + 60_000, 100, 1, 1_500_000),
        row(today + 120_000, 50, 0, 250_000),
        row(today + 180_000, 9_999, 9, 99_000_000, 'held'), // a request still running: not usage
        row(today - 2 * DAY + 1, 40, 2, 500_000),
        row(today - 10 * DAY + 1, 7, 0, 20_000),
        row(today - 40 * DAY + 1, 1_000, 4, 3_000_000),
      ])
      .execute();

    const { page, problems } = await openPage(t);
    await logIn(page, TOKEN);
    await page.locator('[data-testid="org-link"][data-org="busy"]').click();
    const chart = byTestId(page, 'usage-chart');
    await page.locator('[data-testid="usage-chart"][data-days="30"][data-metric="cost"]').waitFor();

    /** The chart's bars as date → data-value, and the values of the days that are not zero. */
    const bars = async (): Promise<Array<[string, string]>> =>
      chart
        .locator('[data-testid="usage-bar"]')
        .evaluateAll((nodes) =>
          nodes.map((node) => [node.getAttribute('data-date')!, node.getAttribute('data-value')!]),
        );
    const nonZero = async (): Promise<Record<string, string>> =>
      Object.fromEntries((await bars()).filter(([, value]) => value !== '0'));
    const totals = async (): Promise<Record<string, string>> => {
      const fields = [
        'requests',
        'input_tokens',
        'output_tokens',
        'cache_read_tokens',
        'cache_write_tokens',
        'searches',
        'cost',
      ];
      return Object.fromEntries(
        await Promise.all(fields.map(async (field) => [field, await textOf(page, `usage-total-${field}`)])),
      );
    };

    const month = await bars();
    t.equal(month.length, 30, 'one bar per day of the 30');
    t.equal(month[0]![0], date(today - 29 * DAY), 'oldest first');
    t.equal(month[29]![0], date(today), 'today last');
    t.same(
      await nonZero(),
      { [date(today - 10 * DAY)]: '0.02', [date(today - 2 * DAY)]: '0.5', [date(today)]: '1.75' },
      'cost per day; the held row is left out',
    );
    t.equal(await textOf(page, 'usage-max'), '1.75', 'the axis shows the largest day');
    t.match(
      await chart.locator(`[data-date="${date(today)}"] title`).textContent(),
      new RegExp(`${date(today).slice(0, 4)}: 1\\.75 credits$`),
      'the tooltip',
    );
    t.same(await totals(), {
      requests: '4',
      input_tokens: '197',
      output_tokens: '394',
      cache_read_tokens: '12',
      cache_write_tokens: '4',
      searches: '3',
      cost: '2.27 credits',
    });

    await byTestId(page, 'usage-metric').selectOption('input_tokens');
    await page.locator('[data-testid="usage-chart"][data-metric="input_tokens"]').waitFor();
    t.same(
      await nonZero(),
      { [date(today - 10 * DAY)]: '7', [date(today - 2 * DAY)]: '40', [date(today)]: '150' },
      'input tokens per day',
    );
    t.match(await chart.locator(`[data-date="${date(today)}"] title`).textContent(), /: 150 input tokens$/);
    t.equal(await textOf(page, 'usage-max'), '150');
    await byTestId(page, 'usage-metric').selectOption('searches');
    await page.locator('[data-testid="usage-chart"][data-metric="searches"]').waitFor();
    t.same(await nonZero(), { [date(today - 2 * DAY)]: '2', [date(today)]: '1' }, 'searches per day');
    await byTestId(page, 'usage-metric').selectOption('requests');
    await page.locator('[data-testid="usage-chart"][data-metric="requests"]').waitFor();
    t.same(
      await nonZero(),
      { [date(today - 10 * DAY)]: '1', [date(today - 2 * DAY)]: '1', [date(today)]: '2' },
      'requests per day',
    );

    await byTestId(page, 'usage-range-7').click();
    await page.locator('[data-testid="usage-chart"][data-days="7"]').waitFor();
    t.equal((await bars()).length, 7, 'one bar per day of the 7');
    t.same(
      await nonZero(),
      { [date(today - 2 * DAY)]: '1', [date(today)]: '2' },
      'the metric stays; the day 10 days back is out of range',
    );
    t.equal(await byTestId(page, 'usage-range-7').getAttribute('aria-pressed'), 'true');
    t.same(await totals(), {
      requests: '3',
      input_tokens: '190',
      output_tokens: '380',
      cache_read_tokens: '9',
      cache_write_tokens: '3',
      searches: '3',
      cost: '2.25 credits',
    });

    await byTestId(page, 'usage-range-90').click();
    await page.locator('[data-testid="usage-chart"][data-days="90"]').waitFor();
    t.equal((await bars()).length, 90, 'one bar per day of the 90');
    t.equal((await nonZero())[date(today - 40 * DAY)], '1', 'the day 40 days back is in');
    t.match(await totals(), { requests: '5', input_tokens: '1,197', cost: '5.27 credits' });
    t.same(problems, []);
  },
);
