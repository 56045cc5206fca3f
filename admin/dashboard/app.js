// The dashboard: one page over the admin API. Routes are URL hashes (#/ the organizations, #/orgs/ID
// one of them). The session is an HttpOnly cookie; its CSRF token lives in this script's memory and
// goes with every change as x-csrf-token. A new key exists only in memory and in its box until the
// box is hidden, the view changes or the page goes away. The operator also creates organizations and
// adds credits here; an organization's page shows its members and audit log. The parts an organization's
// page shares with the members' console are modules of their own (org-cards.js, usage-panel.js,
// key-panel.js, audit-log.js), as are the API calls (page-api.js).

import { auditLog } from './audit-log.js';
import { keyPanel } from './key-panel.js';
import { memberTable } from './member-table.js';
import { orgCards } from './org-cards.js';
import { showOrgList } from './org-list.js';
import { pageApi } from './page-api.js';
import { byTestId, showError } from './page-dom.js';
import { usagePanel } from './usage-panel.js';

const views = [...document.querySelectorAll('[data-view]')];
let csrfToken = null;
const api = pageApi(() => csrfToken);
/** The organization on show (#/orgs/ID), as the API last gave it. */
let currentOrg = null;
const orgPath = (suffix) => `/admin/v1/orgs/${encodeURIComponent(currentOrg.id)}${suffix}`;

const cards = orgCards(byTestId('org-cards'));
const members = memberTable(byTestId('member-panel'));
const usage = usagePanel(byTestId('usage-panel'), (error) => showError('page-error', error));
const audit = auditLog(byTestId('audit-panel'), () => api('GET', orgPath('/audit')));
const keys = keyPanel(byTestId('key-panel'), {
  api,
  keysPath: () => orgPath('/keys'),
  revokePath: (key) => `/admin/v1/keys/${encodeURIComponent(key.id)}/revoke`,
  revokeText: (key) => `Revoke “${key.name}” (…${key.last4})? Requests with it get 401 at once. This cannot be undone.`,
  onChange: () => audit.show(),
});

function show(view) {
  byTestId('loading').hidden = true;
  for (const section of views) section.hidden = section.dataset.view !== view;
  byTestId('nav').hidden = view === 'login';
  byTestId('page-error').hidden = true;
}

// ---- session ----

async function start() {
  try {
    csrfToken = (await api('GET', '/admin/session')).csrf_token;
  } catch {
    show('login');
    byTestId('login-token').focus();
    return;
  }
  await route();
}

byTestId('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = byTestId('login-token');
  byTestId('login-error').hidden = true;
  try {
    csrfToken = (await api('POST', '/admin/login', { token: input.value })).csrf_token;
    input.value = '';
    await route();
  } catch (error) {
    showError('login-error', error.status === 401 ? 'That token is not the admin token.' : error);
  }
});

byTestId('logout').addEventListener('click', async () => {
  await api('POST', '/admin/logout').catch(() => {});
  csrfToken = null;
  keys.hideNewKey();
  show('login');
});

// ---- routes ----

async function route() {
  keys.hideNewKey();
  const match = /^#\/orgs\/(.+)$/.exec(location.hash);
  try {
    if (match) await renderOrg(decodeURIComponent(match[1]));
    else await renderOrgs();
  } catch (error) {
    if (error.status === 401) {
      csrfToken = null;
      show('login');
      return;
    }
    showError('page-error', error);
  }
}

window.addEventListener('hashchange', () => {
  if (csrfToken !== null) void route();
});

async function renderOrgs() {
  const { orgs } = await api('GET', '/admin/v1/orgs');
  showOrgList(orgs, (org) => `${org.balance} credits · ${org.tier.name}`);
  show('orgs');
}

// ---- new organization ----

byTestId('org-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = byTestId('org-new-name');
  const email = byTestId('org-new-email');
  byTestId('org-error').hidden = true;
  const body = { name: name.value };
  if (email.value.trim() !== '') body.members = [{ email: email.value.trim(), role: byTestId('org-new-role').value }];
  try {
    const org = await api('POST', '/admin/v1/orgs', body);
    name.value = '';
    email.value = '';
    location.hash = `#/orgs/${encodeURIComponent(org.id)}`;
  } catch (error) {
    showError('org-error', fieldMessage(error));
  }
});

const FIELD_NAMES = { name: 'Name', 'members[0].email': "First member's e-mail", amount: 'Amount' };

/** The API's message, led by the form field it is about when it names one. */
function fieldMessage(error) {
  const label = FIELD_NAMES[error.field];
  return label === undefined ? error.message : `${label}: ${error.message}`;
}

async function renderOrg(id) {
  const [org] = await Promise.all([
    api('GET', `/admin/v1/orgs/${encodeURIComponent(id)}`),
    usage.show(
      (days) => api('GET', `/admin/v1/orgs/${encodeURIComponent(id)}/usage?days=${days}`),
      (from, to) =>
        `/admin/v1/orgs/${encodeURIComponent(id)}/usage/export?from=${from}&to=${to}&group_by=day,member,key,model`,
    ),
  ]);
  currentOrg = org;
  byTestId('org-name').textContent = org.name;
  cards.show(org);
  resetCreditsForm();
  members.show(org.members);
  await Promise.all([keys.show(), audit.show()]);
  show('org');
}

// ---- credits ----

/** What the API takes: a positive amount with at most 6 decimals ("12.5"); the API checks it again. */
const AMOUNT = /^\d+(\.\d{1,6})?$/;

function resetCreditsForm() {
  byTestId('credits-amount').value = '';
  byTestId('credits-amount').removeAttribute('aria-invalid');
  byTestId('credits-error').hidden = true;
  byTestId('credits-done').hidden = true;
}

function creditsError(message) {
  byTestId('credits-amount').setAttribute('aria-invalid', 'true');
  showError('credits-error', message);
}

byTestId('credits-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = byTestId('credits-amount');
  const amount = input.value.trim();
  resetCreditsForm();
  input.value = amount;
  if (!AMOUNT.test(amount)) {
    creditsError('Amount: a number of credits, e.g. 10 or 12.5 (at most 6 decimals).');
    return;
  }
  try {
    const org = await api('POST', orgPath('/credits'), { amount });
    currentOrg = org;
    cards.show(org);
    input.value = '';
    byTestId('credits-done').textContent = `Added ${amount} credits.`;
    byTestId('credits-done').hidden = false;
    await audit.show();
  } catch (error) {
    creditsError(fieldMessage(error));
  }
});

void start();
