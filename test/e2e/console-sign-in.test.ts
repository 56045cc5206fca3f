// Signing in to the members' console in a real headless Chromium, with a real SMTP round trip: the
// e-mailed link signs in once; the answer never tells a member from a stranger; replayed and expired
// links are refused; requests are throttled; a signed-out session is dead on every node of a fleet
// (two gateways on one store).
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import type { Store } from '../../store/store.js';
import { byTestId, launchChromium, openPage, textOf } from '../helpers/browser.js';
import { consoleEnvironment, linkIn, requestLink, signIn } from '../helpers/console.js';
import { startSmtp, type RunningSmtp } from '../helpers/smtp.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

let smtp: RunningSmtp;
let nodeA: Stack;
let nodeB: Stack;
let store: Store;
let browser: Browser;
let consoleA: string;
let consoleB: string;

t.before(async () => {
  smtp = await startSmtp();
  const env = { ...consoleEnvironment(smtp), ...(await freshStoreEnvironment()) };
  nodeA = await startStack({ env });
  nodeB = await startStack({ env });
  consoleA = nodeA.gateway.consoleUrl!;
  consoleB = nodeB.gateway.consoleUrl!;
  store = await nodeA.store();
  await store.orgs.create('acme', [
    { email: 'ada@acme.example', role: 'admin' },
    { email: 'bob@acme.example', role: 'member' },
    { email: 'cy@acme.example', role: 'member' },
    { email: 'dee@acme.example', role: 'member' },
  ]);
  browser = await launchChromium();
});
t.teardown(async () => {
  await browser?.close();
  await nodeB?.close();
  await nodeA?.close();
  await smtp?.close();
});

/** A page in a fresh profile that expects the refusals this file provokes (400 links, 401 sessions, 429). */
const freshPage = (t: Parameters<typeof openPage>[0]) => openPage(t, browser, /status of (400|401|429)/);

const sessionCookie = async (page: Page) =>
  (await page.context().cookies()).find((cookie) => cookie.name === 'gw_console_session');

t.test('a member signs in by the e-mailed link and lands on their only organization', async (t) => {
  const { page, problems } = await freshPage(t);
  const mail = await requestLink(page, consoleA, smtp, 'ada@acme.example');
  t.match(await textOf(page, 'sign-in-sent-text'), /ada@acme\.example/);
  const link = linkIn(mail);
  t.ok(link.url.startsWith(`${consoleA}/#/link/`), 'the link points at the console');

  await page.goto(link.url);
  await byTestId(page, 'org-view').waitFor({ state: 'visible' });
  t.equal(await textOf(page, 'org-name'), 'acme');
  t.equal(await textOf(page, 'org-role'), 'admin');
  t.equal(await textOf(page, 'nav-email'), 'ada@acme.example');
  t.notMatch(page.url(), link.token, 'the token left the address bar');
  const cookie = await sessionCookie(page);
  t.ok(cookie?.httpOnly, 'the session cookie is HttpOnly');
  t.equal(cookie?.sameSite, 'Strict');
  t.same(problems, []);
});

t.test(
  'the answer to a sign-in request is the same for an address that is no member, and no e-mail goes out',
  async (t) => {
    const { page, problems } = await freshPage(t);
    const seen = smtp.received.length;
    await page.goto(`${consoleA}/#/sign-in`);
    await byTestId(page, 'sign-in-email').fill('stranger@elsewhere.example');
    await byTestId(page, 'sign-in-submit').click();
    t.match(await textOf(page, 'sign-in-sent-text'), /If stranger@elsewhere\.example is a member/);
    // A member's request after it (from another browser): once its e-mail is in, the stranger's would have been too.
    const member = await freshPage(t);
    await requestLink(member.page, consoleA, smtp, 'bob@acme.example');
    t.same(
      smtp.received.slice(seen).flatMap((mail) => mail.to),
      ['bob@acme.example'],
      'only the member got an e-mail',
    );
    t.same([...problems, ...member.problems], []);
  },
);

t.test('a replayed link is refused, with a way to ask for a new one', async (t) => {
  const first = await freshPage(t);
  const { token } = linkIn(await requestLink(first.page, consoleA, smtp, 'cy@acme.example'));
  await first.page.goto(`${consoleA}/#/link/${token}`);
  await byTestId(first.page, 'org-view').waitFor({ state: 'visible' });

  const second = await freshPage(t);
  await second.page.goto(`${consoleA}/#/link/${token}`);
  t.match(await textOf(second.page, 'link-error'), /used, has expired or is unknown/);
  t.equal(await sessionCookie(second.page), undefined, 'no session');
  await byTestId(second.page, 'link-new').click();
  await byTestId(second.page, 'email-form').waitFor({ state: 'visible' });
  t.same([...first.problems, ...second.problems], []);
});

t.test('an expired link is refused', async (t) => {
  const { page, problems } = await freshPage(t);
  const { token } = linkIn(await requestLink(page, consoleA, smtp, 'dee@acme.example'));
  // Its 15 minutes pass: the store's expiry moves to the past.
  await store.db
    .updateTable('sign_in_links')
    .set({ expires_at: Date.now() - 1 })
    .where('email', '=', 'dee@acme.example')
    .where('used_at', 'is', null)
    .execute();
  await page.goto(`${consoleA}/#/link/${token}`);
  t.match(await textOf(page, 'link-error'), /used, has expired or is unknown/);
  t.equal(await sessionCookie(page), undefined, 'no session');
  t.same(problems, []);
});

t.test('requests for sign-in links are throttled per address, and the page says so', async (t) => {
  const { page, problems } = await freshPage(t);
  await page.goto(`${consoleA}/#/sign-in`);
  // console.throttle.per_email: 5 within the window, counted for any address, member or not.
  for (let request = 0; request < 5; request++) {
    await byTestId(page, 'sign-in-email').fill('throttled@elsewhere.example');
    await byTestId(page, 'sign-in-submit').click();
    await byTestId(page, 'sign-in-sent').waitFor({ state: 'visible' });
    await byTestId(page, 'sign-in-again').click();
  }
  await byTestId(page, 'sign-in-email').fill('throttled@elsewhere.example');
  await byTestId(page, 'sign-in-submit').click();
  t.match(await textOf(page, 'sign-in-error'), /Too many sign-in links/);
  t.notOk(await byTestId(page, 'sign-in-sent').isVisible());
  t.same(problems, []);
});

t.test(
  'the sign-in page shows the single sign-on refusal it is sent back with, and no SSO button while OIDC is off',
  async (t) => {
    const { page, problems } = await freshPage(t);
    await page.goto(`${consoleA}/#/sign-in?error=not_a_member`);
    t.match(await textOf(page, 'sign-in-error'), /not a member of any organization/);
    t.notOk(await byTestId(page, 'sso-button').isVisible());
    await page.goto(`${consoleA}/#/sign-in?error=something_new`);
    t.match(await textOf(page, 'sign-in-error'), /Single sign-on did not work \(something_new\)/);
    t.same(problems, []);
  },
);

t.test('a signed-out session is dead on every node', async (t) => {
  const { page, problems } = await freshPage(t);
  await signIn(page, consoleA, smtp, 'bob@acme.example');
  const cookie = await sessionCookie(page);
  const sessionOn = async (consoleUrl: string) =>
    (await fetch(`${consoleUrl}/console/v1/session`, { headers: { cookie: `gw_console_session=${cookie!.value}` } }))
      .status;
  t.equal(await sessionOn(consoleB), 200, 'the other node knows the session (it lives in the store)');
  await page.goto(`${consoleB}/`);
  t.equal(await textOf(page, 'org-name'), 'acme', 'signed in on the other node too');

  await page.goto(`${consoleA}/`);
  await byTestId(page, 'org-view').waitFor({ state: 'visible' });
  await byTestId(page, 'sign-out').click();
  await byTestId(page, 'sign-in-view').waitFor({ state: 'visible' });
  t.equal(await sessionCookie(page), undefined, 'the cookie is cleared');

  t.equal(await sessionOn(consoleA), 401, 'dead on the node that signed out');
  t.equal(await sessionOn(consoleB), 401, 'dead on the other node');
  t.same(problems, []);
});
