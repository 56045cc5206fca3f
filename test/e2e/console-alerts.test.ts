// The alerts panel of the console, in a real headless Chromium (issue #28): an organization's admin adds a
// balance alert and a webhook endpoint (its signing secret shown once), sends a test event and reads the
// endpoint's delivery log, a row per attempt with its status; a member who is not an admin has no panel.
import t, { type Test } from 'tap';
import { byTestId } from '../helpers/browser.js';
import { signedInPage } from '../helpers/console.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { ACME_MEMBERS, consoleStackForFile } from '../kit/console-stack.js';
import { chainOf } from '../kit/stack-presets.js';

const { smtp, store, browser, consoleUrl } = await consoleStackForFile(t, {
  yaml: chainOf('auth', { name: 'alerts', options: '{ poll_ms: 20, allow_private_networks: true }' }, 'meter'),
});
const hooks = await startWebhookReceiver();
t.teardown(() => hooks.close());
const acme = (await store.orgs.create('acme', ACME_MEMBERS)).id;

const signedIn = (t: Test, email: string) =>
  signedInPage(t, browser, { consoleUrl, smtp, email, expected: /status of (401|403|404)/ });

t.test(
  "an admin adds an alert and an endpoint, sends a test event and reads the endpoint's delivery log",
  async (t) => {
    const { page, problems } = await signedIn(t, 'ada@acme.example');
    await byTestId(page, 'alerts-panel').waitFor();

    await byTestId(page, 'rule-threshold').fill('2.5');
    await byTestId(page, 'rule-submit').click();
    await page.locator('[data-testid="alert-rule-row"]', { hasText: 'Balance below 2.5 credits' }).waitFor();
    t.match(
      await store.db
        .withTables<{ alert_rules: { org_id: string; threshold: number } }>()
        .selectFrom('alert_rules')
        .select('threshold')
        .where('org_id', '=', acme)
        .execute(),
      [{ threshold: 2_500_000 }],
    );

    await byTestId(page, 'webhook-url').fill(hooks.url);
    await byTestId(page, 'webhook-description').fill('billing system');
    await byTestId(page, 'webhook-submit').click();
    await byTestId(page, 'webhook-secret-box').waitFor();
    t.match(await byTestId(page, 'webhook-secret').textContent(), /^whsec_/, 'the secret, shown once');
    await page.locator('[data-testid="webhook-row"]', { hasText: 'billing system' }).waitFor();

    await byTestId(page, 'webhook-test').click();
    const [delivery] = await hooks.delivered(1);
    t.match(JSON.parse(delivery!.body), { type: 'test', org_id: acme });
    // The log shows the attempt once its outcome is written (the receiver answers before the row is updated).
    const delivered = page.locator('[data-testid="delivery-row"][data-status="delivered"]');
    for (let look = 0; look < 50 && !(await delivered.isVisible()); look++) {
      await byTestId(page, 'webhook-log').click();
      await delivered.waitFor({ timeout: 200 }).catch(() => undefined);
    }
    t.equal(await delivered.count(), 1, 'one attempt, delivered');

    await page.reload();
    await byTestId(page, 'alerts-panel').waitFor();
    t.equal(await byTestId(page, 'webhook-secret-box').isVisible(), false, 'never shown again');
    t.same(problems, []);
  },
);

t.test('a member who is not an admin has no alerts panel', async (t) => {
  const { page, problems } = await signedIn(t, 'bob@acme.example');
  await byTestId(page, 'org-view').waitFor();
  await byTestId(page, 'key-panel').waitFor();
  t.equal(await byTestId(page, 'alerts-panel').isVisible(), false);
  t.same(problems, []);
});
