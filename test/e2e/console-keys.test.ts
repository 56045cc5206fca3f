// A member's organization and keys in the console, in a real headless Chromium: the numbers and the
// current window's use; a key created, shown once, copied, used and revoked; a member cannot revoke
// another member's key, an organization admin can; nobody sees another organization, whatever the URL.
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { byTestId, textOf } from '../helpers/browser.js';
import { TestClock } from '../helpers/clock.js';
import { signedInPage } from '../helpers/console.js';
import { chatStatus } from '../helpers/key-use.js';
import { ACME_MEMBERS, consoleStackForFile } from '../kit/console-stack.js';
import { AUTH_CACHED, chainOf } from '../kit/stack-presets.js';

declare const navigator: { clipboard: { readText(): Promise<string> } };

const { smtp, stack, store, browser, consoleUrl } = await consoleStackForFile(t, {
  yaml: chainOf(AUTH_CACHED, 'ratelimit'),
  // The auth cache's clock stands still: no entry ever expires, so only the revocation bus can drop one.
  now: new TestClock().now,
});
const acme = (await store.orgs.create('acme', ACME_MEMBERS)).id;
await store.orgs.addCredits(acme, 12_500_000);
const globex = (await store.orgs.create('globex', [{ email: 'gil@globex.example', role: 'admin' }])).id;
const globexKey = (await store.keys.create(globex, 'globex-prod', { who: 'gil@globex.example', address: null })).record
  .id;

/** A page signed in as `email`; the refusals this file provokes (403, 404) are expected in its console. */
const signedIn = (t: Test, email: string) =>
  signedInPage(t, browser, { consoleUrl, smtp, email, expected: /status of (401|403|404)/ });

const chat = (key: string): Promise<number> => chatStatus(stack.gateway.url, key);

/** A console API call from the signed-in page itself (its cookie, its CSRF token); the answer's status. */
const callInPage = (page: Page, method: string, path: string, body?: unknown): Promise<number> =>
  page.evaluate(
    async ([method, path, body]) => {
      const session = (await (await fetch('/console/v1/session')).json()) as { csrf_token?: string };
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (session.csrf_token !== undefined) headers['x-csrf-token'] = session.csrf_token;
      const init = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
      return (await fetch(path, init)).status;
    },
    [method, path, body] as const,
  );

const keyRow = (page: Page, name: string) => page.locator(`[data-testid="key-row"][data-key-name="${name}"]`);

t.test('a member sees the balance, lifetime spend, tier and its limits, and the current window’s use', async (t) => {
  const key = (await store.keys.create(acme, 'warm-up', { who: 'ada@acme.example', address: null })).key;
  t.equal(await chat(key), 200);
  const { page, problems } = await signedIn(t, 'bob@acme.example');
  t.equal(await textOf(page, 'org-name'), 'acme');
  t.equal(await textOf(page, 'org-role'), 'member');
  t.equal(await textOf(page, 'org-balance'), '12.5 credits');
  t.equal(await textOf(page, 'org-spent'), '0 credits');
  t.equal(await textOf(page, 'org-tier'), 'Start');
  t.equal(await textOf(page, 'tier-rpm'), '1,000');
  t.equal(await textOf(page, 'meter-requests-text'), '1 of 1,000', 'the request just made');
  t.equal(await byTestId(page, 'meter-requests').getAttribute('max'), '1000');
  t.match(await textOf(page, 'window-reset'), /^resets at /);
  await page.locator('[data-testid="usage-chart"][data-days="30"][data-metric="cost"]').waitFor();
  t.equal(await byTestId(page, 'usage-bar').count(), 30, 'the usage chart as on the operator’s page');
  t.notOk(await byTestId(page, 'invite-form').isVisible(), 'no member management for a member');
  t.notOk(await byTestId(page, 'audit-panel').isVisible(), 'no audit log for a member');
  t.same(problems, []);
});

t.test('a member creates a key shown once, copies it, uses it (200) and revokes it (401 at once)', async (t) => {
  const { page, problems } = await signedIn(t, 'bob@acme.example');
  await byTestId(page, 'key-name').fill('laptop');
  await byTestId(page, 'key-create').click();
  await byTestId(page, 'new-key').waitFor({ state: 'visible' });
  const key = await byTestId(page, 'new-key-value').inputValue();
  t.match(key, /^sk-svc-[A-Za-z0-9_-]{43}$/);
  await byTestId(page, 'new-key-copy').click();
  t.match(await textOf(page, 'new-key-copied'), /Copied/);
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the clipboard holds the key');
  await byTestId(page, 'new-key-done').click();
  t.equal(await byTestId(page, 'new-key-value').inputValue(), '', 'hidden means gone from the page');

  const row = keyRow(page, 'laptop');
  t.equal((await row.locator('[data-testid="key-row-last4"]').textContent())?.trim(), `…${key.slice(-4)}`);
  t.equal((await row.locator('[data-testid="key-row-created-by"]').textContent())?.trim(), 'bob@acme.example');
  t.equal(await chat(key), 200, 'the key works against the gateway');

  await row.locator('[data-testid="key-revoke"]').click();
  t.match(await textOf(page, 'confirm-text'), /laptop/);
  await byTestId(page, 'confirm-ok').click();
  await row.locator('[data-testid="key-row-status"]', { hasText: 'revoked' }).waitFor();
  // The console announced the revocation before it answered: the still-clocked cache has dropped the key.
  t.equal(await chat(key), 401, 'the gateway refuses the revoked key at once');
  t.same(problems, []);
});

t.test('a member cannot revoke another member’s key: no button, and the API call gives 403', async (t) => {
  const { key, record } = await store.keys.create(acme, 'cy-laptop', { who: 'cy@acme.example', address: null });
  const { page, problems } = await signedIn(t, 'bob@acme.example');
  const row = keyRow(page, 'cy-laptop');
  await row.waitFor();
  t.equal((await row.locator('[data-testid="key-row-created-by"]').textContent())?.trim(), 'cy@acme.example');
  t.equal(await row.locator('[data-testid="key-revoke"]').count(), 0, 'no revoke button');
  t.equal(await callInPage(page, 'POST', `/console/v1/orgs/${acme}/keys/${record.id}/revoke`), 403);
  t.equal((await store.keys.get(record.id)).status, 'active');
  t.equal(await chat(key), 200, 'the key still works');
  t.same(problems, []);
});

t.test('an organization admin revokes any key of the organization, and the audit log says so', async (t) => {
  const { key, record } = await store.keys.create(acme, 'cy-server', { who: 'cy@acme.example', address: null });
  const { page, problems } = await signedIn(t, 'ada@acme.example');
  const row = keyRow(page, 'cy-server');
  await row.locator('[data-testid="key-revoke"]').click();
  await byTestId(page, 'confirm-ok').click();
  await row.locator('[data-testid="key-row-status"]', { hasText: 'revoked' }).waitFor();
  t.equal(await chat(key), 401);
  const entry = page.locator('[data-testid="audit-row"][data-action="key.revoked"]').first();
  await entry.waitFor();
  t.equal(await entry.locator('[data-testid="audit-actor"]').textContent(), 'ada@acme.example');
  t.equal(await entry.locator('[data-testid="audit-address"]').textContent(), '127.0.0.1');
  t.equal(await entry.locator('[data-testid="audit-subject"]').textContent(), `“cy-server” (${record.id})`);
  t.same(problems, []);
});

t.test('a member of org A gets 404 for every page and API call of org B', async (t) => {
  for (const email of ['bob@acme.example', 'ada@acme.example']) {
    const { page, problems } = await signedIn(t, email);
    await page.goto(`${consoleUrl}/#/orgs/${globex}`);
    await byTestId(page, 'not-found-view').waitFor({ state: 'visible' });
    t.notOk(await byTestId(page, 'org-view').isVisible(), `${email}: the page shows nothing of it`);
    t.notOk(await page.locator('body', { hasText: 'globex' }).count(), `${email}: not even its name`);

    const b = `/console/v1/orgs/${globex}`;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', b],
      ['GET', `${b}/usage?days=30`],
      ['GET', `${b}/keys`],
      ['POST', `${b}/keys`, { name: 'intruder' }],
      ['POST', `${b}/keys/${globexKey}/revoke`],
      ['POST', `/console/v1/orgs/${acme}/keys/${globexKey}/revoke`],
      ['GET', `${b}/members`],
      ['POST', `${b}/members`, { email: 'mallory@acme.example', role: 'admin' }],
      ['POST', `${b}/members/gil%40globex.example/role`, { role: 'member' }],
      ['DELETE', `${b}/members/gil%40globex.example`],
      ['GET', `${b}/audit`],
    ];
    for (const [method, path, body] of calls)
      t.equal(await callInPage(page, method, path, body), 404, `${email}: ${method} ${path}`);
    t.same(problems, []);
  }
  t.equal((await store.keys.list(globex)).length, 1, 'globex has only its own key');
  t.equal((await store.keys.get(globexKey)).status, 'active');
  t.same(
    (await store.orgs.members(globex)).map((member) => [member.email, member.role]),
    [['gil@globex.example', 'admin']],
  );
});
