// The dashboard: one page over the admin API. Routes are URL hashes (#/ the organizations, #/orgs/ID
// one of them). The session is an HttpOnly cookie; its CSRF token lives in this script's memory and
// goes with every change as x-csrf-token. A new key exists only in memory and in its box until the
// box is hidden, the view changes or the page goes away. The operator also creates organizations and
// adds credits here; an organization's page shows its members and audit log.

import { auditRows } from './audit-log.js';
import { usagePanel } from './usage-panel.js';

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);
const views = [...document.querySelectorAll('[data-view]')];
let csrfToken = null;

class ApiError extends Error {
  /** `field`: the request field the API says the error is about (`amount`, `name`, `members[0].email`). */
  constructor(status, message, field) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok)
    throw new ApiError(response.status, data?.error?.message ?? `HTTP ${response.status}`, data?.error?.field);
  return data;
}

/** Creates an element; text goes in as text, never as HTML. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

function show(view) {
  byTestId('loading').hidden = true;
  for (const section of views) section.hidden = section.dataset.view !== view;
  byTestId('nav').hidden = view === 'login';
  byTestId('page-error').hidden = true;
}

function showError(testId, error) {
  const node = byTestId(testId);
  node.textContent = error instanceof Error ? error.message : String(error);
  node.hidden = false;
}

const number = (value) => value.toLocaleString('en-US');
const when = (iso) => (iso === null ? 'never' : new Date(iso).toLocaleString());

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
  hideNewKey();
  show('login');
});

// ---- routes ----

async function route() {
  hideNewKey();
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
  const list = byTestId('org-list');
  list.replaceChildren(
    ...orgs.map((org) =>
      el(
        'li',
        {},
        el(
          'a',
          { href: `#/orgs/${encodeURIComponent(org.id)}`, 'data-testid': 'org-link', 'data-org': org.name },
          el('strong', {}, org.name),
          el('span', { class: 'muted' }, `${org.balance} credits · ${org.tier.name}`),
        ),
      ),
    ),
  );
  byTestId('org-empty').hidden = orgs.length > 0;
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

let currentOrg = null;

async function renderOrg(id) {
  const [org] = await Promise.all([
    api('GET', `/admin/v1/orgs/${encodeURIComponent(id)}`),
    usage.show((days) => api('GET', `/admin/v1/orgs/${encodeURIComponent(id)}/usage?days=${days}`)),
  ]);
  currentOrg = org;
  byTestId('org-name').textContent = org.name;
  showOrgNumbers(org);
  byTestId('org-tier').textContent = org.tier.name;
  byTestId('tier-rpm').textContent = number(org.tier.requests_per_minute);
  byTestId('tier-itpm').textContent = number(org.tier.input_tokens_per_minute);
  byTestId('tier-otpm').textContent = number(org.tier.output_tokens_per_minute);
  byTestId('key-error').hidden = true;
  resetCreditsForm();
  renderMembers(org.members);
  await Promise.all([renderKeys(), renderAudit()]);
  show('org');
}

function renderMembers(members) {
  byTestId('member-rows').replaceChildren(
    ...members.map((member) =>
      el(
        'tr',
        { 'data-testid': 'member-row', 'data-email': member.email },
        el('td', { 'data-testid': 'member-email' }, member.email),
        el('td', { 'data-testid': 'member-role' }, member.role),
        el('td', {}, when(member.created_at)),
      ),
    ),
  );
  byTestId('member-empty').hidden = members.length > 0;
}

async function renderAudit() {
  const { entries } = await api('GET', `/admin/v1/orgs/${encodeURIComponent(currentOrg.id)}/audit`);
  byTestId('audit-rows').replaceChildren(...auditRows(entries));
  byTestId('audit-empty').hidden = entries.length > 0;
}

function showOrgNumbers(org) {
  byTestId('org-balance').textContent = `${org.balance} credits`;
  byTestId('org-spent').textContent = `${org.spent} credits`;
}

async function renderKeys() {
  const { keys } = await api('GET', `/admin/v1/orgs/${encodeURIComponent(currentOrg.id)}/keys`);
  byTestId('key-rows').replaceChildren(
    ...keys.map((key) => {
      const action =
        key.status === 'active'
          ? el('button', { type: 'button', class: 'danger-outline', 'data-testid': 'key-revoke' }, 'Revoke')
          : '';
      if (action) action.addEventListener('click', () => revoke(key));
      return el(
        'tr',
        { 'data-testid': 'key-row', 'data-key-id': key.id, 'data-key-name': key.name },
        el('td', { 'data-testid': 'key-row-name' }, key.name),
        el('td', {}, el('code', { 'data-testid': 'key-row-last4' }, `…${key.last4}`)),
        el('td', {}, when(key.created_at)),
        el('td', { 'data-testid': 'key-row-created-by' }, key.created_by ?? '—'),
        el('td', { 'data-testid': 'key-row-last-used' }, when(key.last_used_at)),
        el('td', {}, el('span', { class: `badge ${key.status}`, 'data-testid': 'key-row-status' }, key.status)),
        el('td', {}, action),
      );
    }),
  );
  byTestId('key-empty').hidden = keys.length > 0;
}

// ---- usage ----

const usage = usagePanel(byTestId('usage-panel'), (error) => showError('page-error', error));

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
    const org = await api('POST', `/admin/v1/orgs/${encodeURIComponent(currentOrg.id)}/credits`, { amount });
    currentOrg = org;
    showOrgNumbers(org);
    input.value = '';
    byTestId('credits-done').textContent = `Added ${amount} credits.`;
    byTestId('credits-done').hidden = false;
    await renderAudit();
  } catch (error) {
    creditsError(fieldMessage(error));
  }
});

// ---- keys ----

byTestId('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = byTestId('key-name');
  byTestId('key-error').hidden = true;
  try {
    const created = await api('POST', `/admin/v1/orgs/${encodeURIComponent(currentOrg.id)}/keys`, {
      name: input.value,
    });
    input.value = '';
    showNewKey(created.key);
    await Promise.all([renderKeys(), renderAudit()]);
  } catch (error) {
    showError('key-error', error);
  }
});

function showNewKey(key) {
  byTestId('new-key-value').value = key;
  byTestId('new-key-copied').hidden = true;
  byTestId('new-key').hidden = false;
}

function hideNewKey() {
  byTestId('new-key-value').value = '';
  byTestId('new-key').hidden = true;
}

byTestId('new-key-done').addEventListener('click', hideNewKey);

byTestId('new-key-copy').addEventListener('click', async () => {
  const input = byTestId('new-key-value');
  const note = byTestId('new-key-copied');
  try {
    await navigator.clipboard.writeText(input.value);
    note.textContent = 'Copied to the clipboard.';
  } catch {
    // No clipboard access (an insecure origin, a denied permission): select it for Ctrl+C / ⌘C.
    input.focus();
    input.select();
    note.textContent = document.execCommand?.('copy')
      ? 'Copied to the clipboard.'
      : 'Selected: press Ctrl+C (⌘C) to copy.';
  }
  note.hidden = false;
});

async function revoke(key) {
  const confirmed = await confirmDialog(
    `Revoke “${key.name}” (…${key.last4})? Requests with it get 401 at once. This cannot be undone.`,
  );
  if (!confirmed) return;
  try {
    await api('POST', `/admin/v1/keys/${encodeURIComponent(key.id)}/revoke`);
    await Promise.all([renderKeys(), renderAudit()]);
  } catch (error) {
    showError('key-error', error);
  }
}

/** The page's own confirmation: resolves true on Revoke, false on Cancel or Escape. */
function confirmDialog(text) {
  const dialog = byTestId('confirm-dialog');
  byTestId('confirm-text').textContent = text;
  return new Promise((resolve) => {
    const finish = (answer) => {
      byTestId('confirm-ok').removeEventListener('click', yes);
      byTestId('confirm-cancel').removeEventListener('click', no);
      dialog.removeEventListener('cancel', no);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const yes = () => finish(true);
    const no = () => finish(false);
    byTestId('confirm-ok').addEventListener('click', yes);
    byTestId('confirm-cancel').addEventListener('click', no);
    dialog.addEventListener('cancel', no);
    dialog.showModal();
    byTestId('confirm-cancel').focus();
  });
}

void start();
