// Single sign-on to the members' console, end to end: the console's page, its button, a real OpenID
// provider (oidc-provider on loopback, its own login and consent pages), the callback on the console,
// and the member's organization on screen; in a real headless Chromium.
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { byTestId, launchChromium, openPage, textOf } from '../helpers/browser.js';
import { freePort } from '../helpers/free-port.js';
import { startOidcProvider, type RunningOidcProvider } from '../helpers/oidc-provider.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const CLIENT_ID = 'gateway-console';
const CLIENT_SECRET = 'console-client-secret-for-tests';

let provider: RunningOidcProvider;
let stack: Stack;
let browser: Browser;
let consoleUrl: string;
let acme: string;

t.before(async () => {
  // The console's port is chosen first: the provider must know the redirect URI before the console runs.
  const consolePort = await freePort();
  consoleUrl = `http://127.0.0.1:${consolePort}`;
  provider = await startOidcProvider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${consoleUrl}/console/sign-in/oidc/callback`],
    accounts: { ada: { email: 'ada@acme.test', email_verified: true }, mallory: { email: 'mallory@evil.test' } },
  });
  stack = await startStack({
    yaml: `console:\n  oidc: { label: Acme SSO }\n`,
    env: {
      GATEWAY_CONSOLE_PORT: String(consolePort),
      GATEWAY_OIDC_ISSUER: provider.issuer,
      GATEWAY_OIDC_CLIENT_ID: CLIENT_ID,
      GATEWAY_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      ...(await freshStoreEnvironment()),
    },
  });
  const store = await stack.store();
  acme = (await store.orgs.create('acme', [{ email: 'ada@acme.test', role: 'admin' }])).id;
  browser = await launchChromium();
});
t.teardown(async () => {
  await browser?.close();
  await stack?.close();
  await provider?.close();
});

/** The provider's pages load a web font from the internet, which is not reachable here: its failures are expected. */
const FONT_REFUSED = /status of 401|Failed to load resource: net::ERR_FAILED/;

/** From the console's sign-in page, through the single sign-on button and the provider's login and consent. */
async function signInWithSso(page: Page, account: string): Promise<void> {
  await page.goto(`${consoleUrl}/#/sign-in`);
  const button = byTestId(page, 'sso-button');
  await button.waitFor({ state: 'visible' });
  await button.click();
  await page.fill('input[name=login]', account);
  await page.fill('input[name=password]', 'any password');
  await page.click('button[type=submit]');
  await page.click('button:has-text("Continue")');
}

t.test(
  'sign-in by OpenID Connect: the e-mail claim is matched to the members, and the member sees its organization',
  async (t) => {
    const { page, problems } = await openPage(t, browser, FONT_REFUSED);
    await page.context().route('https://fonts.googleapis.com/**', (route) => route.abort());
    await signInWithSso(page, 'ada');
    await byTestId(page, 'org-view').waitFor({ state: 'visible' });
    t.equal(new URL(page.url()).origin, consoleUrl, 'back on the console');
    t.match(await textOf(page, 'org-name'), /acme/);
    const cookies = await page.context().cookies(consoleUrl);
    const session = cookies.find((cookie) => cookie.name === 'gw_console_session');
    t.ok(session, 'signed in');
    t.equal(session!.httpOnly, true);
    t.equal(session!.sameSite, 'Strict');
    t.notOk(
      cookies.some((cookie) => cookie.name === 'gw_console_oidc'),
      'the state cookie is gone',
    );
    const answer = await page.evaluate(async (orgId) => (await fetch(`/console/v1/orgs/${orgId}`)).status, acme);
    t.equal(answer, 200, "the page's own calls carry the session");
    t.same(problems, []);
  },
);

t.test('an account whose e-mail is no member is sent back to the sign-in page, not signed in', async (t) => {
  const { page, problems } = await openPage(t, browser, FONT_REFUSED);
  await page.context().route('https://fonts.googleapis.com/**', (route) => route.abort());
  await signInWithSso(page, 'mallory');
  t.match(await textOf(page, 'sign-in-error'), /not a member of any organization/);
  const cookies = await page.context().cookies(consoleUrl);
  t.notOk(cookies.some((cookie) => cookie.name === 'gw_console_session'));
  t.same(problems, []);
});

t.test('the sign-in page offers the single sign-on button with its configured label', async (t) => {
  const options = await fetch(`${consoleUrl}/console/sign-in/options`);
  t.same(await options.json(), { email: false, oidc: { label: 'Acme SSO' } });
  const { page } = await openPage(t, browser);
  await page.goto(`${consoleUrl}/#/sign-in`);
  t.equal(await textOf(page, 'sso-button'), 'Acme SSO');
});
