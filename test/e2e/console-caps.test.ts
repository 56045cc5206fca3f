// The caps panel of the console, in a real headless Chromium (issue #28): an organization's admin sets and
// clears a member's caps and the audit log shows both; a member who is not an admin sees its own caps and
// its keys' with their use ("My caps"), and no form.
import t, { type Test } from 'tap';
import { byTestId } from '../helpers/browser.js';
import { signedInPage } from '../helpers/console.js';
import { ACME_MEMBERS, consoleStackForFile } from '../kit/console-stack.js';
import { chainOf } from '../kit/stack-presets.js';

const { smtp, store, browser, consoleUrl } = await consoleStackForFile(t, { yaml: chainOf('auth', 'meter') });
const acme = (await store.orgs.create('acme', ACME_MEMBERS)).id;
const bobs = await store.keys.create(acme, 'bob-laptop', { who: 'bob@acme.example', address: null });
await store.keys.create(acme, 'ada-server', { who: 'ada@acme.example', address: null });

const signedIn = (t: Test, email: string) =>
  signedInPage(t, browser, { consoleUrl, smtp, email, expected: /status of (401|403|404)/ });

t.test("an admin sets and clears a member's caps, and the audit log shows both", async (t) => {
  const { page, problems } = await signedIn(t, 'ada@acme.example');
  await byTestId(page, 'caps-admin').waitFor();

  await byTestId(page, 'caps-whose').selectOption('member:bob@acme.example');
  await byTestId(page, 'caps-day_micros').fill('5000000');
  await byTestId(page, 'caps-concurrent_requests').fill('2');
  await byTestId(page, 'caps-save').click();
  const row = page.locator('[data-testid="org-caps-row"]', { hasText: 'bob@acme.example' });
  await row.waitFor();
  t.match(await row.textContent(), /Day: 5 credits, In flight: 2/);
  t.same((await store.caps.get(acme, { kind: 'member', email: 'bob@acme.example' }))?.caps, {
    dayMicros: 5_000_000,
    concurrentRequests: 2,
  });
  await page.locator('[data-testid="audit-row"][data-action="caps.set"]').waitFor();

  await byTestId(page, 'caps-clear').click();
  await page.locator('[data-testid="audit-row"][data-action="caps.cleared"]').waitFor();
  t.equal(await byTestId(page, 'org-caps-row').count(), 0, 'no caps left');
  t.equal(await byTestId(page, 'caps-day_micros').inputValue(), '', 'the form shows none');
  t.same(problems, []);
});

t.test('a member who is not an admin sees its own caps and its keys’ with their use, and no form', async (t) => {
  await store.caps.set(
    acme,
    { kind: 'key', keyId: bobs.record.id },
    { dayMicros: 2_000_000 },
    { who: 'ada@acme.example', address: null },
  );
  const { page, problems } = await signedIn(t, 'bob@acme.example');
  await byTestId(page, 'my-caps-table').waitFor();
  const rows = page.locator('[data-testid="my-caps-row"]');
  await rows.nth(1).waitFor();
  t.equal(await rows.count(), 2, 'itself and its one key, not the admin’s');
  t.match(await rows.nth(0).locator('td').first().textContent(), 'You');
  const keyRow = rows.nth(1);
  t.match(await keyRow.locator('td').first().textContent(), 'bob-laptop');
  t.equal(await keyRow.locator('[data-field="day_micros"]').textContent(), '0 of 2 credits');
  t.equal(await keyRow.locator('[data-field="week_micros"]').textContent(), '0 credits (no cap)');
  t.equal(await byTestId(page, 'caps-admin').isVisible(), false, 'no form, no organization table');
  t.same(problems, []);
});
