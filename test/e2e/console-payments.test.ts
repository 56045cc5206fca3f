// The console's payments panel in a real headless Chromium, with the Stripe SDK calling the fake of Stripe:
// an organization admin adds credits through a Checkout page and sees the payment paid once Stripe's signed
// webhook lands; an amount in fractions of a cent is refused on the page; a member sees the payments only.
import t, { type Test } from 'tap';
import { startStripeFake } from '../fakes/stripe-fake.js';
import { byTestId, textOf } from '../helpers/browser.js';
import { signedInPage } from '../helpers/console.js';
import { ACME_MEMBERS, consoleStackForFile } from '../kit/console-stack.js';

const SECRET_KEY = 'sk_test_console';
const WEBHOOK_SECRET = 'whsec_test_console';

const fake = await startStripeFake({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
t.teardown(() => fake.close());
const { smtp, store, browser, consoleUrl } = await consoleStackForFile(t, {
  env: {
    GATEWAY_STRIPE_SECRET_KEY: SECRET_KEY,
    GATEWAY_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    GATEWAY_STRIPE_API_URL: fake.url,
  },
});
fake.webhookUrl = `${consoleUrl}/webhooks/stripe`;
const acme = (await store.orgs.create('acme', ACME_MEMBERS)).id;
await store.orgs.addCredits(acme, 2_000_000);

const signedIn = (t: Test, email: string) =>
  signedInPage(t, browser, { consoleUrl, smtp, email, expected: /status of (400|401)/ });

t.test(
  "an admin adds credits: the page goes to Stripe's Checkout, and once the webhook lands the payment is paid",
  async (t) => {
    const { page, problems } = await signedIn(t, 'ada@acme.example');
    t.match(await textOf(page, 'payment-bounds'), /from 5 to 10000 credits/);
    t.equal(await textOf(page, 'payment-empty'), 'No payments yet.');
    await byTestId(page, 'payment-amount').fill('25');
    await byTestId(page, 'payment-submit').click();
    await byTestId(page, 'fake-checkout').waitFor();
    const sessionId = page.url().split('/checkout/')[1]!;
    t.ok(fake.sessions.has(sessionId), "the page is the session's Checkout page");
    const event = fake.complete(sessionId);
    await fake.delivered(String(event.id));
    // Checkout sends the member back to the organization's page.
    await page.goto(`${consoleUrl}/#/orgs/${acme}`);
    await page.locator('[data-testid="payment-row"][data-status="complete"]').waitFor();
    t.equal(await textOf(page, 'payment-credits'), '25');
    t.equal(await textOf(page, 'payment-status'), 'paid');
    t.equal(await textOf(page, 'org-balance'), '27 credits');
    t.same(problems, []);
  },
);

t.test('an amount in fractions of a cent is refused on the page, naming the rule', async (t) => {
  const { page, problems } = await signedIn(t, 'ada@acme.example');
  await byTestId(page, 'payment-amount').fill('10.005');
  await byTestId(page, 'payment-submit').click();
  t.match(await textOf(page, 'payment-error'), /whole number of cents/);
  t.same(problems, []);
});

t.test('a member sees the payments but no form to add credits', async (t) => {
  const { page, problems } = await signedIn(t, 'bob@acme.example');
  await byTestId(page, 'payment-row').first().waitFor();
  t.equal(await byTestId(page, 'payment-form').isHidden(), true);
  t.same(problems, []);
});
