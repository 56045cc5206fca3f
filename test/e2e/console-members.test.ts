// An organization's members in the console, in a real headless Chromium with a real SMTP round trip:
// an admin's invitation e-mail lets the invited person sign in; roles change and members are removed
// (after the page's own confirmation), each in the audit log with who and from where; an organization
// keeps at least one admin.
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { byTestId, openPage, textOf } from '../helpers/browser.js';
import { linkIn, mailTo, signedInPage } from '../helpers/console.js';
import { ACME_MEMBERS, consoleStackForFile } from '../kit/console-stack.js';

const { smtp, store, browser, consoleUrl } = await consoleStackForFile(t);
const acme = (await store.orgs.create('acme', ACME_MEMBERS)).id;

const signedIn = (t: Test, email: string) =>
  signedInPage(t, browser, { consoleUrl, smtp, email, expected: /status of (401|404|409)/ });

const memberRow = (page: Page, email: string) => page.locator(`[data-testid="member-row"][data-email="${email}"]`);

/** The newest audit entry of an action, as [who, from, on what]. */
async function latestAudit(page: Page, action: string): Promise<string[]> {
  const row = page.locator(`[data-testid="audit-row"][data-action="${action}"]`).first();
  await row.waitFor();
  return Promise.all(
    ['audit-actor', 'audit-address', 'audit-subject'].map(
      async (id) => (await row.locator(`[data-testid="${id}"]`).textContent()) ?? '',
    ),
  );
}

t.test('an invitation e-mail lets the invited person sign in', async (t) => {
  const admin = await signedIn(t, 'ada@acme.example');
  const seen = smtp.received.length;
  await byTestId(admin.page, 'invite-email').fill('dana@acme.example');
  await byTestId(admin.page, 'invite-role').selectOption('member');
  await byTestId(admin.page, 'invite-submit').click();
  t.match(await textOf(admin.page, 'invite-done'), /Invited dana@acme\.example as member/);
  await memberRow(admin.page, 'dana@acme.example').waitFor();
  t.same(await latestAudit(admin.page, 'member.added'), [
    'ada@acme.example',
    '127.0.0.1',
    'dana@acme.example as member',
  ]);

  const { token } = linkIn(await mailTo(smtp, 'dana@acme.example', seen));
  const invited = await openPage(t, browser);
  await invited.page.goto(`${consoleUrl}/#/link/${token}`);
  t.equal(await textOf(invited.page, 'org-name'), 'acme', 'signed in, on the organization');
  t.equal(await textOf(invited.page, 'org-role'), 'member');
  t.same([...admin.problems, ...invited.problems], []);
});

t.test('an organization keeps at least one admin: the last one can neither step down nor leave', async (t) => {
  const { page, problems } = await signedIn(t, 'ada@acme.example');
  const own = memberRow(page, 'ada@acme.example');
  await own.locator('[data-testid="member-role-select"]').selectOption('member');
  t.match(await textOf(page, 'member-error'), /admin/);
  t.equal(await own.locator('[data-testid="member-role-select"]').inputValue(), 'admin', 'the select goes back');
  await own.locator('[data-testid="member-remove"]').click();
  await byTestId(page, 'confirm-ok').click();
  await page.locator('[data-testid="member-error"]', { hasText: 'admin' }).waitFor();
  t.equal(await store.orgs.roleOf(acme, 'ada@acme.example'), 'admin');
  t.same(problems, []);
});

t.test('an organization admin changes a member’s role, and the audit log says so', async (t) => {
  const { page, problems } = await signedIn(t, 'ada@acme.example');
  await memberRow(page, 'bob@acme.example').locator('[data-testid="member-role-select"]').selectOption('admin');
  await page.locator('[data-testid="audit-row"][data-action="member.role_changed"]').waitFor();
  t.same(await latestAudit(page, 'member.role_changed'), [
    'ada@acme.example',
    '127.0.0.1',
    'bob@acme.example: member → admin',
  ]);
  t.equal(await store.orgs.roleOf(acme, 'bob@acme.example'), 'admin');

  const promoted = await signedIn(t, 'bob@acme.example');
  t.equal(await textOf(promoted.page, 'org-role'), 'admin');
  t.ok(await byTestId(promoted.page, 'invite-form').isVisible(), 'the new admin manages members');
  t.same([...problems, ...promoted.problems], []);
});

t.test('an organization admin removes a member after confirming; the member loses the organization', async (t) => {
  const removed = await signedIn(t, 'cy@acme.example');
  const { page, problems } = await signedIn(t, 'ada@acme.example');
  const row = memberRow(page, 'cy@acme.example');

  await row.locator('[data-testid="member-remove"]').click();
  t.match(await textOf(page, 'confirm-text'), /cy@acme\.example/);
  await byTestId(page, 'confirm-cancel').click();
  await byTestId(page, 'confirm-dialog').waitFor({ state: 'hidden' });
  t.equal(await store.orgs.roleOf(acme, 'cy@acme.example'), 'member', 'cancel keeps the member');

  await row.locator('[data-testid="member-remove"]').click();
  await byTestId(page, 'confirm-ok').click();
  await row.waitFor({ state: 'detached' });
  t.same(await latestAudit(page, 'member.removed'), ['ada@acme.example', '127.0.0.1', 'cy@acme.example']);
  t.equal(await store.orgs.roleOf(acme, 'cy@acme.example'), undefined);

  await removed.page.reload();
  await byTestId(removed.page, 'not-found-view').waitFor({ state: 'visible' });
  await byTestId(removed.page, 'not-found-back').click();
  await byTestId(removed.page, 'org-empty').waitFor({ state: 'visible' });
  t.same([...problems, ...removed.problems], []);
});
