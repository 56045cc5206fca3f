// An organization's API keys, for the operator's dashboard and the members' console: the form that
// creates one (the new key shown once, new-key-panel.js), the table of keys, and Revoke, confirmed in
// the page. What differs between the pages comes in as options: the API paths, who may revoke what, the
// confirmation's words, and what else to reload after a change.

import { confirmDialog } from './confirm-dialog.js';
import { newKeyPanel } from './new-key-panel.js';
import { el, showError, table } from './page-dom.js';
import { when } from './page-format.js';

const COLUMNS = ['Name', 'Key', 'Created', 'Created by', 'Last used', 'Status', ''];

/**
 * Fills `container` with the keys' heading (#keys), form, new-key box and table, and wires them.
 * `api`: the page's api(); `keysPath()`: the organization's keys (GET lists them, POST creates one);
 * `revokePath(key)`; `mayRevoke(key)`: whether an active key gets a Revoke button (all do unless told); `revokeText(key)`: the
 * confirmation's words; `onChange()`: what else to reload after a key is created or revoked.
 * `show()` hides the last error and loads the keys; `hideNewKey()` hides and forgets a new key.
 */
export function keyPanel(container, { api, keysPath, revokePath, mayRevoke = () => true, revokeText, onChange }) {
  const name = el('input', {
    id: 'key-name',
    name: 'name',
    maxlength: '100',
    required: true,
    placeholder: 'Key name, e.g. laptop',
    'data-testid': 'key-name',
  });
  const form = el(
    'form',
    { class: 'inline', 'data-testid': 'key-form' },
    el('label', { for: 'key-name', class: 'sr-only' }, 'Key name'),
    name,
    el('button', { type: 'submit', class: 'primary', 'data-testid': 'key-create' }, 'Create key'),
  );
  const error = el('p', { class: 'error', role: 'alert', 'data-testid': 'key-error', hidden: true });
  const newKey = newKeyPanel();
  const rows = el('tbody', { 'data-testid': 'key-rows' });
  const empty = el('p', { class: 'muted', 'data-testid': 'key-empty', hidden: true }, 'No keys yet.');
  container.replaceChildren(
    el('h2', { id: 'keys' }, 'API Keys'),
    form,
    error,
    newKey.element,
    table({ class: 'keys', 'data-testid': 'key-table' }, COLUMNS, rows),
    empty,
  );

  function row(key) {
    let action = '';
    if (key.status === 'active' && mayRevoke(key)) {
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
  }

  async function load() {
    const { keys } = await api('GET', keysPath());
    rows.replaceChildren(...keys.map(row));
    empty.hidden = keys.length > 0;
  }

  const afterChange = () => Promise.all([load(), onChange()]);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    try {
      const created = await api('POST', keysPath(), { name: name.value });
      name.value = '';
      newKey.show(created.key);
      await afterChange();
    } catch (failure) {
      showError(error, failure);
    }
  });

  async function revoke(key) {
    const confirmed = await confirmDialog({ title: 'Revoke this key?', text: revokeText(key), ok: 'Revoke' });
    if (!confirmed) return;
    try {
      await api('POST', revokePath(key));
      await afterChange();
    } catch (failure) {
      showError(error, failure);
    }
  }

  return {
    show() {
      error.hidden = true;
      return load();
    },
    hideNewKey: newKey.hide,
  };
}
