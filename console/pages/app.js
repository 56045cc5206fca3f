// The members' console: one page over the console API (docs/console.md). Routes are URL hashes:
// #/sign-in (an e-mailed link or single sign-on; `?error=` carries the OIDC callback's refusal),
// #/link/TOKEN (an e-mailed link, redeemed once), #/ (the member's organizations), #/orgs/ID (one of
// them). The session is an HttpOnly cookie; its CSRF token lives in this script's memory and goes with
// every change as x-csrf-token. A new key exists only in memory and in its box until the box is hidden,
// the view changes or the page goes away. What a member may do is the API's to decide: the page only
// hides what would be refused (revoke where `can_revoke`, member management for the org's admins).

import { auditRows } from './audit-log.js';
import { usagePanel } from './usage-panel.js';

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);
const views = [...document.querySelectorAll('[data-view]')];
/** GET /console/v1/session's answer while signed in ({email, csrf_token, orgs}), else null. */
let session = null;
let currentOrg = null;

class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code;
    this.field = error?.field;
  }
}

async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && session !== null) headers['x-csrf-token'] = session.csrf_token;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.error);
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
  byTestId('nav').hidden = session === null;
  byTestId('nav-email').textContent = session?.email ?? '';
  byTestId('page-error').hidden = true;
}

function showError(testId, error) {
  const node = byTestId(testId);
  node.textContent = error instanceof Error ? error.message : String(error);
  node.hidden = false;
}

const number = (value) => value.toLocaleString('en-US');
const when = (iso) => (iso === null ? 'never' : new Date(iso).toLocaleString());
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
  hideNewKey();
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
  byTestId('org-list').replaceChildren(
    ...orgs.map((org) =>
      el(
        'li',
        {},
        el(
          'a',
          { href: `#/orgs/${encodeURIComponent(org.id)}`, 'data-testid': 'org-link', 'data-org': org.name },
          el('strong', {}, org.name),
          el('span', { class: 'muted' }, org.role),
        ),
      ),
    ),
  );
  byTestId('org-empty').hidden = orgs.length > 0;
  show('orgs');
}

const usage = usagePanel(byTestId('usage-panel'), (error) => showError('page-error', error));

async function renderOrg(id) {
  const base = `/console/v1/orgs/${encodeURIComponent(id)}`;
  const [org] = await Promise.all([api('GET', base), usage.show((days) => api('GET', `${base}/usage?days=${days}`))]);
  currentOrg = org;
  const admin = org.role === 'admin';
  byTestId('org-name').textContent = org.name;
  byTestId('org-role').textContent = org.role;
  byTestId('org-balance').textContent = `${org.balance} credits`;
  byTestId('org-spent').textContent = `${org.spent} credits`;
  byTestId('org-tier').textContent = org.tier.name;
  byTestId('tier-rpm').textContent = number(org.tier.requests_per_minute);
  byTestId('tier-itpm').textContent = number(org.tier.input_tokens_per_minute);
  byTestId('tier-otpm').textContent = number(org.tier.output_tokens_per_minute);
  showWindow(org.window);
  for (const id of ['key-error', 'member-error', 'invite-done']) byTestId(id).hidden = true;
  byTestId('invite-form').hidden = !admin;
  byTestId('audit-panel').hidden = !admin;
  await Promise.all([renderKeys(), renderMembers(), admin ? renderAudit() : null]);
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

// ---- keys ----

async function renderKeys() {
  const { keys } = await api('GET', orgPath('/keys'));
  byTestId('key-rows').replaceChildren(
    ...keys.map((key) => {
      let action = '';
      if (key.status === 'active' && key.can_revoke) {
        action = el('button', { type: 'button', class: 'danger-outline', 'data-testid': 'key-revoke' }, 'Revoke');
        action.addEventListener('click', () => revoke(key));
      }
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

/** After a change: the keys, and the audit log when the member may read it. */
const afterKeyChange = () => Promise.all([renderKeys(), currentOrg.role === 'admin' ? renderAudit() : null]);

byTestId('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = byTestId('key-name');
  byTestId('key-error').hidden = true;
  try {
    const created = await api('POST', orgPath('/keys'), { name: input.value });
    input.value = '';
    showNewKey(created.key);
    await afterKeyChange();
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
  const confirmed = await confirmDialog({
    title: 'Revoke this key?',
    text: `Revoke “${key.name}” (…${key.last4})? Requests with it are refused from now on. This cannot be undone.`,
    ok: 'Revoke',
  });
  if (!confirmed) return;
  try {
    await api('POST', orgPath(`/keys/${encodeURIComponent(key.id)}/revoke`));
    await afterKeyChange();
  } catch (error) {
    showError('key-error', error);
  }
}

// ---- members ----

async function renderMembers() {
  const { members } = await api('GET', orgPath('/members'));
  const admin = currentOrg.role === 'admin';
  byTestId('member-rows').replaceChildren(
    ...members.map((member) =>
      el(
        'tr',
        { 'data-testid': 'member-row', 'data-email': member.email },
        el('td', { 'data-testid': 'member-email' }, member.email),
        el('td', { 'data-testid': 'member-role' }, admin ? roleSelect(member) : member.role),
        el('td', {}, when(member.created_at)),
        el('td', {}, admin ? removeButton(member) : ''),
      ),
    ),
  );
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
        await Promise.all([renderMembers(), renderAudit()]);
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
    await Promise.all([renderMembers(), renderAudit()]);
  } catch (error) {
    showError('member-error', error);
  }
});

// ---- audit log ----

async function renderAudit() {
  const { entries } = await api('GET', orgPath('/audit'));
  byTestId('audit-rows').replaceChildren(...auditRows(entries));
  byTestId('audit-empty').hidden = entries.length > 0;
}

// ---- confirmation ----

/** The page's own confirmation: resolves true on its OK button, false on Cancel or Escape. */
function confirmDialog({ title, text, ok }) {
  const dialog = byTestId('confirm-dialog');
  byTestId('confirm-title').textContent = title;
  byTestId('confirm-text').textContent = text;
  byTestId('confirm-ok').textContent = ok;
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

async function start() {
  if (!location.hash.startsWith('#/link/')) await refreshSession().catch((error) => showError('page-error', error));
  await route();
}

void start();
