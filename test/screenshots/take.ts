// `npm run screenshots`: the pages as the README shows them. Starts a gateway with the console and the
// admin listener on a fresh store with sample data (an organization, its members, keys, a month of
// usage, a few requests in the current window), signs in as a member and as the operator in a headless
// Chromium, and writes docs/screenshots/*.png.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { packageRoot } from '../../config/package-root.js';
import type { NewUsageRow } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import { startStripeFake } from '../fakes/stripe-fake.js';
import { byTestId, launchChromium } from '../helpers/browser.js';
import { consoleEnvironment, linkIn, mailTo, signIn } from '../helpers/console.js';
import { startSmtp } from '../helpers/smtp.js';
import { startStack } from '../helpers/stack.js';

const OUT = join(packageRoot(), 'docs', 'screenshots');
const TOKEN = 'screenshots-admin-token-0123456789';
const VIEWPORT = { width: 1200, height: 860 };
const DAY = 86_400_000;

async function sampleData(store: Store): Promise<{ orgId: string; chatKey: string }> {
  const ada = { who: 'ada@acme.example', address: '203.0.113.7' };
  const operator = { who: 'operator', address: '127.0.0.1' };
  const org = await store.orgs.create('acme', [{ email: 'ada@acme.example', role: 'admin' }], operator);
  await store.orgs.create('globex', [{ email: 'hank@globex.example', role: 'admin' }], operator);
  await store.orgs.create('initech', [], operator);
  await store.orgs.addCredits(org.id, 250_000_000, 'admin api', operator);
  await store.orgs.addMember(org.id, { email: 'bob@acme.example', role: 'member' }, ada);
  await store.orgs.addMember(org.id, { email: 'cy@acme.example', role: 'member' }, ada);
  await store.orgs.addMember(org.id, { email: 'cy@acme.example', role: 'admin' }, ada);
  const prod = await store.keys.create(org.id, 'production', ada);
  await store.keys.create(org.id, 'bob-laptop', { who: 'bob@acme.example', address: '198.51.100.23' });
  const old = await store.keys.create(org.id, 'old-ci', ada);
  await store.keys.revoke(old.record.id, ada);

  const today = Math.floor(Date.now() / DAY) * DAY;
  const rows: NewUsageRow[] = [];
  for (let day = 29; day >= 0; day--) {
    const requests = 3 + ((day * 7) % 11);
    for (let n = 0; n < requests; n++)
      rows.push({
        id: `use_shot_${day}_${n}`,
        org_id: org.id,
        key_id: prod.record.id,
        dialect: n % 3 === 0 ? 'messages' : 'chat',
        input_tokens: 1_200 + ((day * 131 + n * 17) % 3_000),
        output_tokens: 300 + ((day * 53 + n * 29) % 900),
        cache_read_tokens: n % 4 === 0 ? 800 : 0,
        cache_write_tokens: 0,
        searches: n % 5 === 0 ? 1 : 0,
        cost_micros: 4_000 + ((day * 977 + n * 331) % 9_000),
        status: 200,
        duration_ms: 800,
        created_at: today - day * DAY + 3_600_000 + n * 60_000,
        state: 'settled',
      });
  }
  await store.db.insertInto('usage').values(rows).execute();
  const spent = rows.reduce((sum, row) => sum + row.cost_micros, 0);
  await store.db
    .updateTable('orgs')
    .set((eb) => ({ spent_micros: spent, balance_micros: eb('balance_micros', '-', spent) }))
    .where('id', '=', org.id)
    .execute();
  return { orgId: org.id, chatKey: prod.key };
}

async function shoot(page: Page, name: string, anchor?: string): Promise<void> {
  if (anchor !== undefined)
    await page.locator(`#${anchor}`).evaluate((node) => node.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  process.stdout.write(`docs/screenshots/${name}.png\n`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const smtp = await startSmtp();
  const stripe = await startStripeFake({ secretKey: 'sk_test_screenshots', webhookSecret: 'whsec_screenshots' });
  const stack = await startStack({
    yaml: 'plugins:\n  - name: auth\n  - name: ratelimit\n',
    env: {
      ...consoleEnvironment(smtp),
      GATEWAY_ADMIN_TOKEN: TOKEN,
      GATEWAY_ADMIN_PORT: '0',
      GATEWAY_STRIPE_SECRET_KEY: 'sk_test_screenshots',
      GATEWAY_STRIPE_WEBHOOK_SECRET: 'whsec_screenshots',
      GATEWAY_STRIPE_API_URL: stripe.url,
      GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gateway-screenshots-')),
    },
  });
  let browser: Browser | undefined;
  try {
    const store = await stack.store();
    const { orgId, chatKey } = await sampleData(store);
    for (let n = 0; n < 4; n++)
      await fetch(`${stack.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${chatKey}` },
        body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hello' }] }),
      });
    browser = await launchChromium();
    const consoleUrl = stack.gateway.consoleUrl!;
    stripe.webhookUrl = `${consoleUrl}/webhooks/stripe`;

    const member = await (await browser.newContext({ viewport: VIEWPORT })).newPage();
    await member.goto(`${consoleUrl}/#/sign-in`);
    await byTestId(member, 'email-form').waitFor({ state: 'visible' });
    await shoot(member, 'console-sign-in');

    await signIn(member, consoleUrl, smtp, 'ada@acme.example');
    await member.locator('[data-testid="usage-chart"][data-days="30"]').waitFor();
    await shoot(member, 'console-organization');
    await byTestId(member, 'key-name').fill('staging');
    await byTestId(member, 'key-create').click();
    await byTestId(member, 'new-key').waitFor({ state: 'visible' });
    await shoot(member, 'console-keys', 'keys');
    await byTestId(member, 'invite-email').fill('dana@acme.example');
    await byTestId(member, 'invite-submit').click();
    await byTestId(member, 'invite-done').waitFor({ state: 'visible' });
    await shoot(member, 'console-members', 'members');
    await shoot(member, 'console-audit', 'audit');
    const setCaps = async (whose: string, caps: Record<string, string>): Promise<void> => {
      const option = member.locator('[data-testid="caps-whose"] option', { hasText: whose });
      await byTestId(member, 'caps-whose').selectOption((await option.getAttribute('value'))!);
      for (const [field, value] of Object.entries(caps)) await byTestId(member, `caps-${field}`).fill(value);
      await byTestId(member, 'caps-save').click();
      await member.locator('[data-testid="audit-row"][data-action="caps.set"]').first().waitFor();
    };
    await setCaps('member bob@acme.example', { month_micros: '50000000', requests_per_minute: '60' });
    await setCaps('“production”', { day_micros: '20000000', concurrent_requests: '8' });
    await member.locator('[data-testid="org-caps-row"]').nth(1).waitFor();
    await shoot(member, 'console-caps', 'caps');
    // The invitation went out through SMTP like any sign-in link.
    linkIn(await mailTo(smtp, 'dana@acme.example'));
    // A top-up paid through (the fake of) Stripe's Checkout page.
    await byTestId(member, 'payment-amount').fill('100');
    await byTestId(member, 'payment-submit').click();
    await byTestId(member, 'fake-checkout').waitFor();
    const paid = stripe.complete(member.url().split('/checkout/')[1]!);
    await stripe.delivered(String(paid.id));
    await member.goto(`${consoleUrl}/#/orgs/${orgId}`);
    await member.locator('[data-testid="payment-row"][data-status="complete"]').waitFor();
    await shoot(member, 'console-payments', 'payments');

    const operator = await (await browser.newContext({ viewport: VIEWPORT })).newPage();
    await operator.goto(`${stack.gateway.adminUrl!}/`);
    await byTestId(operator, 'login-token').fill(TOKEN);
    await byTestId(operator, 'login-submit').click();
    await byTestId(operator, 'org-list').waitFor();
    await shoot(operator, 'admin-organizations');
    await operator.locator('[data-testid="org-link"][data-org="acme"]').click();
    await operator.locator('[data-testid="usage-chart"][data-days="30"]').waitFor();
    await operator.screenshot({ path: join(OUT, 'admin-organization.png'), fullPage: true });
    process.stdout.write('docs/screenshots/admin-organization.png\n');
  } finally {
    await browser?.close();
    await stack.close();
    await stripe.close();
    await smtp.close();
  }
}

await main();
