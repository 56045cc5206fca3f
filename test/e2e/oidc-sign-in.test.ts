// OpenID Connect sign-in (console/oidc-sign-in.ts) against a real OpenID provider (oidc-provider on loopback),
// in a real headless Chromium, with a real store: a small server mounts the two routes as the console does,
// and answers the callback with the e-mail (200) or the error code (400) instead of a session.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculatePKCECodeChallenge } from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { OIDC_STATE_COOKIE, OidcSignIn, OidcSignInError } from '../../console/oidc-sign-in.js';
import { openStore, type Store } from '../../store/store.js';
import { launchChromium } from '../helpers/browser.js';
import { freePort } from '../helpers/free-port.js';
import { startOidcProvider, type OidcAccount, type OidcProviderOptions } from '../helpers/oidc-provider.js';
import { freshStoreOptions } from '../helpers/test-store.js';

const CLIENT_ID = 'gateway-console';
const CLIENT_SECRET = 'console-client-secret-for-tests';
const CALLBACK_PATH = '/console/sign-in/oidc/callback';
const ACCOUNTS: Record<string, OidcAccount> = {
  ada: { email: 'Ada@Example.com', email_verified: true },
  eve: { email: 'eve@example.com', email_verified: false },
  nobody: {},
};

let store: Store;
let browser: Browser;
/** The console and provider most tests share. */
let main: SignInStack;

t.before(async () => {
  store = await openStore(await freshStoreOptions());
  main = await startSignInStack();
  browser = await launchChromium();
});
t.teardown(async () => {
  await browser?.close();
  await main?.close();
  await store?.close();
});

interface SignInStack {
  /** The console's origin: `http://127.0.0.1:PORT`. */
  origin: string;
  issuer: string;
  close(): Promise<void>;
}

/**
 * A console server and a provider whose client redirects to it. Given a `port`, the console is pointed at it
 * while nothing listens there, and `up()` starts the provider on it.
 */
async function startSignInStack(
  provider: Partial<OidcProviderOptions> = {},
): Promise<SignInStack & { up(): Promise<void> }> {
  const { server, origin } = await startConsoleServer();
  const redirectUri = `${origin}${CALLBACK_PATH}`;
  const port = provider.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const signIn = new OidcSignIn({
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri,
    logins: async () => store.oidcLogins,
  });
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const answer = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
      res.end(text);
    };
    const refuse = (error: unknown) => {
      if (error instanceof OidcSignInError) answer(400, error.code, { 'set-cookie': error.clearCookie });
      else answer(500, String(error));
    };
    if (url.pathname === '/console/sign-in/oidc')
      signIn
        .start(req)
        .then(({ location, setCookie }) => answer(302, '', { location, 'set-cookie': setCookie }), refuse);
    else if (url.pathname === CALLBACK_PATH)
      signIn
        .finish(url, req)
        .then(({ email, clearCookie }) => answer(200, email, { 'set-cookie': clearCookie }), refuse);
    else answer(404, 'not found');
  });
  let running: { close(): Promise<void> } | undefined;
  const up = async () => {
    running = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [redirectUri],
      accounts: ACCOUNTS,
      ...provider,
      port,
    });
  };
  if (provider.port === undefined) await up();
  return {
    origin,
    issuer,
    up,
    close: async () => {
      await running?.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

async function startConsoleServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A fresh browser profile with one page; the provider's pages load a web font, which is not fetched. */
async function openPage(t: Test): Promise<Page> {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  await context.route('https://fonts.googleapis.com/**', (route) => route.abort());
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

/** Begins a sign-in at the console and signs in at the provider as `account`, through its login and consent pages. */
async function signInAtProvider(page: Page, stack: SignInStack, account: string): Promise<void> {
  await page.goto(`${stack.origin}/console/sign-in/oidc`);
  await loginAtProvider(page, account);
}

/** On the provider's login page: signs in as `account` and consents. */
async function loginAtProvider(page: Page, account: string): Promise<void> {
  await page.fill('input[name=login]', account);
  await page.fill('input[name=password]', 'any password');
  await page.click('button[type=submit]');
  await page.click('button:has-text("Continue")');
}

/** The console's answer to the callback: its status and text. */
async function callbackAnswer(page: Page, stack: SignInStack): Promise<{ url: string; text: string }> {
  await page.waitForURL(`${stack.origin}${CALLBACK_PATH}?**`);
  await page.waitForLoadState();
  return { url: page.url(), text: (await page.textContent('body')) ?? '' };
}

t.test('a member signs in and the e-mail claim comes back, lower-cased', async (t) => {
  const page = await openPage(t);
  await signInAtProvider(page, main, 'ada');
  const { text } = await callbackAnswer(page, main);
  t.equal(text, 'ada@example.com');
  const cookies = await page.context().cookies(main.origin + CALLBACK_PATH);
  t.notOk(
    cookies.some((cookie) => cookie.name === OIDC_STATE_COOKIE),
    'the state cookie is cleared',
  );
});

t.test('the authorization request carries PKCE S256, state and nonce, and the provider requires PKCE', async (t) => {
  const started = await fetch(`${main.origin}/console/sign-in/oidc`, { redirect: 'manual' });
  t.equal(started.status, 302);
  const location = new URL(started.headers.get('location') ?? '');
  t.equal(location.origin + location.pathname, `${main.issuer}/auth`);
  const params = location.searchParams;
  t.equal(params.get('response_type'), 'code');
  t.equal(params.get('client_id'), CLIENT_ID);
  t.equal(params.get('redirect_uri'), `${main.origin}${CALLBACK_PATH}`);
  t.equal(params.get('scope'), 'openid email');
  t.equal(params.get('code_challenge_method'), 'S256');
  const state = params.get('state') ?? '';
  const setCookie = started.headers.get('set-cookie') ?? '';
  t.match(setCookie, `${OIDC_STATE_COOKIE}=${state}; HttpOnly; SameSite=Lax; Path=/console/sign-in/oidc; Max-Age=600`);
  t.notMatch(setCookie, /Secure/, 'not Secure over plain http');

  const login = await store.oidcLogins.take(state);
  if (login === undefined) throw new Error('the sign-in is not in the store under its state');
  t.equal(params.get('code_challenge'), await calculatePKCECodeChallenge(login.codeVerifier), 'the challenge is S256');
  t.equal(params.get('nonce'), login.nonce);

  params.delete('code_challenge');
  params.delete('code_challenge_method');
  const withoutPkce = await fetch(location, { redirect: 'manual' });
  const refusal = new URL(withoutPkce.headers.get('location') ?? '');
  t.equal(refusal.origin + refusal.pathname, `${main.origin}${CALLBACK_PATH}`);
  t.equal(refusal.searchParams.get('error'), 'invalid_request');
  t.match(refusal.searchParams.get('error_description'), /PKCE/);
});

t.test('the state cookie is Secure behind TLS', async (t) => {
  const started = await fetch(`${main.origin}/console/sign-in/oidc`, {
    redirect: 'manual',
    headers: { 'x-forwarded-proto': 'https' },
  });
  t.match(started.headers.get('set-cookie'), /^gw_console_oidc=[^;]+; HttpOnly; SameSite=Lax; .*; Secure$/);
});

t.test('a replayed callback URL is refused', async (t) => {
  const page = await openPage(t);
  await signInAtProvider(page, main, 'ada');
  const { url, text } = await callbackAnswer(page, main);
  t.equal(text, 'ada@example.com');

  await page.goto(url);
  t.equal(await page.textContent('body'), 'oidc_state', 'in the same browser');
  // Even with the state cookie the first answer cleared: the store gives a sign-in out once.
  const state = new URL(url).searchParams.get('state');
  const replayed = await fetch(url, { headers: { cookie: `${OIDC_STATE_COOKIE}=${state}` } });
  t.equal(replayed.status, 400);
  t.equal(await replayed.text(), 'oidc_state', 'with the state cookie');
});

t.test("a callback without the state cookie, or with another browser's, is refused", async (t) => {
  const page = await openPage(t);
  await page.goto(`${main.origin}/console/sign-in/oidc`);
  const [stateCookie] = await page.context().cookies(`${main.origin}${CALLBACK_PATH}`);
  if (stateCookie?.name !== OIDC_STATE_COOKIE) throw new Error('no state cookie after the start');
  await page.context().clearCookies({ name: OIDC_STATE_COOKIE });
  await loginAtProvider(page, 'ada');
  const { url, text } = await callbackAnswer(page, main);
  t.equal(text, 'oidc_state', 'without a state cookie');

  const other = await openPage(t);
  await other.goto(`${main.origin}/console/sign-in/oidc`);
  const otherCookies = await other.context().cookies(`${main.origin}${CALLBACK_PATH}`);
  t.ok(
    otherCookies.some((cookie) => cookie.name === OIDC_STATE_COOKIE && cookie.value !== stateCookie.value),
    'the other browser holds a state of its own',
  );
  await other.goto(url);
  t.equal(await other.textContent('body'), 'oidc_state', "with another browser's state cookie");

  await page.context().addCookies([stateCookie]);
  await page.goto(url);
  t.equal(await page.textContent('body'), 'ada@example.com', 'the browser that began the sign-in finishes it');
});

t.test('an account without a verified e-mail is refused', async (t) => {
  const page = await openPage(t);
  await signInAtProvider(page, main, 'eve');
  t.equal((await callbackAnswer(page, main)).text, 'oidc_email', 'email_verified false');
  const second = await openPage(t);
  await signInAtProvider(second, main, 'nobody');
  t.equal((await callbackAnswer(second, main)).text, 'oidc_email', 'no e-mail claim');
});

t.test("the provider's refusal (the user cancels: access_denied) gives oidc_denied", async (t) => {
  const page = await openPage(t);
  await page.goto(`${main.origin}/console/sign-in/oidc`);
  await page.click('text=[ Cancel ]');
  const { url, text } = await callbackAnswer(page, main);
  t.equal(new URL(url).searchParams.get('error'), 'access_denied');
  t.equal(text, 'oidc_denied');
});

t.test('an e-mail the provider gives only at userinfo is read there', async (t) => {
  const stack = await startSignInStack({ emailIn: 'userinfo' });
  t.teardown(() => stack.close());
  const page = await openPage(t);
  await signInAtProvider(page, stack, 'ada');
  t.equal((await callbackAnswer(page, stack)).text, 'ada@example.com');
});

t.test('a provider down at first use gives oidc_failed, and a sign-in works once it is up', async (t) => {
  const stack = await startSignInStack({ port: await freePort() });
  t.teardown(() => stack.close());
  const down = await fetch(`${stack.origin}/console/sign-in/oidc`, { redirect: 'manual' });
  t.equal(down.status, 400);
  t.equal(await down.text(), 'oidc_failed');

  await stack.up();
  const page = await openPage(t);
  await signInAtProvider(page, stack, 'ada');
  t.equal((await callbackAnswer(page, stack)).text, 'ada@example.com');
});
