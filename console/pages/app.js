// The members' console: one page over the console API (docs/console.md). Routes are URL hashes:
// #/sign-in (an e-mailed link or single sign-on; `?error=` carries the OIDC callback's refusal),
// #/link/TOKEN (an e-mailed link, redeemed once), #/ (the member's organizations), #/orgs/ID (one of
// them). The session is an HttpOnly cookie; its CSRF token lives in this script's memory and goes with
// every change as x-csrf-token. A new key exists only in memory and in its box until the box is hidden,
// the view changes or the page goes away. What a member may do is the API's to decide: the page only
// hides what would be refused (revoke where `can_revoke`, member management for the org's admins). The
// parts an organization's page shares with the operator's dashboard come from its folder (org-cards.js,
// usage-panel.js, key-panel.js, audit-log.js, confirm-dialog.js, page-api.js; docs/console.md).

import { alertsPanel } from './alerts-panel.js';
import { auditLog } from './audit-log.js';
import { batchesPanel } from './batches-panel.js';
import { capsPanel } from './caps-panel.js';
import { confirmDialog } from './confirm-dialog.js';
import { keyPanel } from './key-panel.js';
import { memberTable } from './member-table.js';
import { orgCards } from './org-cards.js';
import { showOrgList } from './org-list.js';
import { ApiError, pageApi } from './page-api.js';
import { paymentsPanel } from './payments-panel.js';
import { byTestId, el, showError } from './page-dom.js';
import { number } from './page-format.js';
import { usagePanel } from './usage-panel.js';

const views = [...document.querySelectorAll('[data-view]')];
/** GET /console/v1/session's answer while signed in ({email, csrf_token, orgs}), else null. */
let session = null;
let currentOrg = null;
const api = pageApi(() => session?.csrf_token ?? null);

function show(view) {
  byTestId('loading').hidden = true;
  for (const section of views) section.hidden = section.dataset.view !== view;
  byTestId('nav').hidden = session === null;
  byTestId('nav-email').textContent = session?.email ?? '';
  byTestId('page-error').hidden = true;
}

const orgPath = (suffix = '') => `/console/v1/orgs/${encodeURIComponent(currentOrg.id)}${suffix}`;

/** Replaces the URL's hash without a history entry (and without a hashchange). */
const replaceHash = (hash) => history.replaceState(null, '', `${location.pathname}${hash}`);

// ---- session and routes ----

async function refreshSession() {
  try {
    session = await api('GET', '/console/v1/session');
  } catch (error) {
    if (error.status !== 401) throw error;
    session = null;
  }
}

async function route() {
  keys.hideNewKey();
  alerts.hideSecret();
  const hash = location.hash;
  try {
    if (hash.startsWith('#/link/')) return await redeemLink(decodeURIComponent(hash.slice('#/link/'.length)));
    if (session === null) return await showSignIn();
    if (hash.startsWith('#/sign-in')) replaceHash('#/');
    const match = /^#\/orgs\/([^/?]+)$/.exec(location.hash);
    if (match) await renderOrg(decodeURIComponent(match[1]));
    else await renderOrgs();
  } catch (error) {
    if (error.status === 401) {
      session = null;
      await showSignIn();
    } else if (error.status === 404) {
      show('not-found');
    } else {
      showError('page-error', error);
    }
  }
}

window.addEventListener('hashchange', () => void route());

byTestId('sign-out').addEventListener('click', async () => {
  await api('POST', '/console/v1/sign-out').catch(() => {});
  session = null;
  currentOrg = null;
  replaceHash('#/sign-in');
  await route();
});

// ---- sign-in ----

/** What the OIDC callback's `?error=` codes mean to the person signing in. */
const SIGN_IN_ERRORS = {
  not_a_member: 'That account’s e-mail address is not a member of any organization on this gateway.',
  oidc_email: 'Your identity provider did not give a verified e-mail address for that account.',
  oidc_state: 'That sign-in was started too long ago or in another browser. Please try again.',
  oidc_denied: 'The sign-in was cancelled at your identity provider.',
  oidc_failed: 'Your identity provider could not sign you in. Please try again.',
};

/** GET /console/sign-in/options, once: {email: boolean, oidc: {label} | null}. */
let signInOptions = null;

async function showSignIn() {
  signInOptions ??= await api('GET', '/console/sign-in/options').catch(() => ({ email: true, oidc: null }));
  const { email, oidc } = signInOptions;
  byTestId('email-form').hidden = !email || !byTestId('sign-in-sent').hidden;
  byTestId('sso-button').hidden = oidc === null;
  byTestId('sso-button').textContent = oidc?.label ?? '';
  byTestId('sign-in-or').hidden = !email || oidc === null;
  const code = new URLSearchParams(location.hash.split('?')[1] ?? '').get('error');
  byTestId('sign-in-error').hidden = true;
  if (code !== null) {
    showError('sign-in-error', SIGN_IN_ERRORS[code] ?? `Single sign-on did not work (${code}). Please try again.`);
    byTestId('sign-in-error').dataset.code = code;
  }
  show('sign-in');
}

byTestId('email-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = byTestId('sign-in-email').value.trim();
  byTestId('sign-in-error').hidden = true;
  try {
    await api('POST', '/console/sign-in/email', { email });
  } catch (error) {
    // The answer never says whether the address is a member; only a refusal to send anything is shown.
    if (error.status === 429) {
      showError('sign-in-error', 'Too many sign-in links were asked for. Wait a few minutes, then try again.');
      return;
    }
    if (error.status === 400) {
      showError('sign-in-error', error);
      return;
    }
    if (!(error instanceof ApiError)) {
      showError('sign-in-error', 'The console could not be reached. Check your connection and try again.');
      return;
    }
  }
  byTestId('sign-in-sent-text').textContent =
    `If ${email} is a member of an organization here, a sign-in link is on its way to it. ` +
    'The link works once, for a short while.';
  byTestId('sign-in-sent').hidden = false;
  byTestId('email-form').hidden = true;
});

byTestId('sign-in-again').addEventListener('click', () => {
  byTestId('sign-in-sent').hidden = true;
  byTestId('email-form').hidden = false;
  byTestId('sign-in-email').select();
});

byTestId('sso-button').addEventListener('click', () => location.assign('/console/sign-in/oidc'));

async function redeemLink(token) {
  // The token leaves the address bar and the history at once: it is a password until it is used.
  replaceHash('');
  byTestId('link-pending').hidden = false;
  byTestId('link-refused').hidden = true;
  show('link');
  try {
    await api('POST', '/console/sign-in/link', { token });
  } catch (error) {
    if (error.status !== 400) throw error;
    byTestId('link-pending').hidden = true;
    byTestId('link-refused').hidden = false;
    return;
  }
  await refreshSession();
  const orgs = session?.orgs ?? [];
  replaceHash(orgs.length === 1 ? `#/orgs/${encodeURIComponent(orgs[0].id)}` : '#/');
  await route();
}

// ---- organizations ----

async function renderOrgs() {
  await refreshSession();
  if (session === null) return showSignIn();
  const { orgs } = session;
  if (orgs.length === 1) {
    replaceHash(`#/orgs/${encodeURIComponent(orgs[0].id)}`);
    return renderOrg(orgs[0].id);
  }
  showOrgList(orgs, (org) => org.role);
  show('orgs');
}

const cards = orgCards(byTestId('org-cards'));
const memberList = memberTable(byTestId('member-panel'), { actions: true });
const usage = usagePanel(byTestId('usage-panel'), (error) => showError('page-error', error));
const audit = auditLog(byTestId('audit-panel'), () => api('GET', orgPath('/audit')));
const alerts = alertsPanel(byTestId('alerts-panel'), api);
const caps = capsPanel(byTestId('caps-panel'), api, () => audit.show());
const payments = paymentsPanel(byTestId('payments-panel'), api);
const batches = batchesPanel(byTestId('batches-panel'), api);
const keys = keyPanel(byTestId('key-panel'), {
  api,
  keysPath: () => orgPath('/keys'),
  revokePath: (key) => orgPath(`/keys/${encodeURIComponent(key.id)}/revoke`),
  mayRevoke: (key) => key.can_revoke,
  revokeText: (key) =>
    `Revoke “${key.name}” (…${key.last4})? Requests with it are refused from now on. This cannot be undone.`,
  // The caps of the member's keys, and the audit log when the member may read it.
  onChange: () =>
    Promise.all([
      caps.show(orgPath, { email: session.email, admin: currentOrg.role === 'admin' }),
      currentOrg.role === 'admin' ? audit.show() : null,
    ]),
});

async function renderOrg(id) {
  const base = `/console/v1/orgs/${encodeURIComponent(id)}`;
  const [org] = await Promise.all([
    api('GET', base),
    usage.show(
      (days) => api('GET', `${base}/usage?days=${days}`),
      (from, to) => `${base}/usage/export?from=${from}&to=${to}&group_by=day,member,key,model`,
    ),
  ]);
  currentOrg = org;
  const admin = org.role === 'admin';
  byTestId('org-name').textContent = org.name;
  byTestId('org-role').textContent = org.role;
  cards.show(org);
  showWindow(org.window);
  for (const id of ['member-error', 'invite-done']) byTestId(id).hidden = true;
  byTestId('invite-form').hidden = !admin;
  byTestId('audit-panel').hidden = !admin;
  byTestId('alerts-panel').hidden = !admin;
  await Promise.all([
    keys.show(),
    renderMembers(),
    admin ? audit.show() : null,
    admin ? alerts.show(orgPath) : null,
    caps.show(orgPath, { email: session.email, admin }),
    batches.show(orgPath, org.batches),
  ]);
  await payments.show(orgPath, admin);
  show('org');
}

/** The current rate-limit window's use of the three limits, as meters; null when the gateway limits nothing. */
function showWindow(use) {
  byTestId('window-meters').hidden = use === null;
  byTestId('window-off').hidden = use !== null;
  byTestId('window-reset').textContent = '';
  if (use === null) return;
  for (const field of ['requests', 'input_tokens', 'output_tokens']) {
    const { used, limit } = use[field];
    const meter = byTestId(`meter-${field}`);
    meter.max = limit;
    meter.high = limit * 0.8;
    meter.optimum = 0;
    meter.value = Math.min(used, limit);
    byTestId(`meter-${field}-text`).textContent = `${number(used)} of ${number(limit)}`;
  }
  const reset = new Date(use.requests.reset_at);
  byTestId('window-reset').textContent = `resets at ${reset.toLocaleTimeString()}`;
  byTestId('window-reset').dataset.resetAt = use.requests.reset_at;
}

// ---- members ----

async function renderMembers() {
  const { members } = await api('GET', orgPath('/members'));
  memberList.show(members, currentOrg.role === 'admin' ? { role: roleSelect, action: removeButton } : {});
}

function roleSelect(member) {
  const select = el(
    'select',
    { 'data-testid': 'member-role-select', 'aria-label': `Role of ${member.email}` },
    ...['member', 'admin'].map((role) => el('option', { value: role }, role)),
  );
  select.value = member.role;
  select.addEventListener('change', async () => {
    byTestId('member-error').hidden = true;
    try {
      await api('POST', orgPath(`/members/${encodeURIComponent(member.email)}/role`), { role: select.value });
      // One's own role may have changed, and with it what the page offers.
      await renderOrg(currentOrg.id);
    } catch (error) {
      select.value = member.role;
      showError('member-error', error);
    }
  });
  return select;
}

function removeButton(member) {
  const button = el('button', { type: 'button', class: 'danger-outline', 'data-testid': 'member-remove' }, 'Remove');
  button.addEventListener('click', async () => {
    const self = member.email === session?.email;
    const confirmed = await confirmDialog({
      title: self ? 'Leave this organization?' : 'Remove this member?',
      text: self
        ? `You will no longer see “${currentOrg.name}” or its keys.`
        : `${member.email} will no longer see “${currentOrg.name}”. The keys they created keep working until revoked.`,
      ok: self ? 'Leave' : 'Remove',
    });
    if (!confirmed) return;
    byTestId('member-error').hidden = true;
    try {
      await api('DELETE', orgPath(`/members/${encodeURIComponent(member.email)}`));
      if (self) {
        replaceHash('#/');
        await route();
      } else {
        await Promise.all([renderMembers(), audit.show()]);
      }
    } catch (error) {
      showError('member-error', error);
    }
  });
  return button;
}

byTestId('invite-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = byTestId('invite-email');
  const role = byTestId('invite-role').value;
  byTestId('member-error').hidden = true;
  byTestId('invite-done').hidden = true;
  try {
    await api('POST', orgPath('/members'), { email: email.value.trim(), role });
    byTestId('invite-done').textContent = `Invited ${email.value.trim()} as ${role}: a sign-in link is on its way.`;
    byTestId('invite-done').hidden = false;
    email.value = '';
    await Promise.all([renderMembers(), audit.show()]);
  } catch (error) {
    showError('member-error', error);
  }
});

async function start() {
  if (!location.hash.startsWith('#/link/')) await refreshSession().catch((error) => showError('page-error', error));
  await route();
}

void start();
