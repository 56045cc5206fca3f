// The pages' own confirmation of a destructive step, never the browser's confirm(): a modal <dialog>
// (data-testid confirm-dialog, confirm-title, confirm-text, confirm-cancel, confirm-ok), made on first use.

import { byTestId, el } from './page-dom.js';

let dialog = null;

function make() {
  const node = el(
    'dialog',
    { class: 'confirm', 'data-testid': 'confirm-dialog' },
    el('h2', { 'data-testid': 'confirm-title' }),
    el('p', { 'data-testid': 'confirm-text' }),
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'button', 'data-testid': 'confirm-cancel' }, 'Cancel'),
      el('button', { type: 'button', class: 'danger', 'data-testid': 'confirm-ok' }),
    ),
  );
  document.body.append(node);
  return node;
}

/** Asks; resolves true on the `ok` button, false on Cancel or Escape. */
export function confirmDialog({ title, text, ok }) {
  dialog ??= make();
  const part = (id) => byTestId(id, dialog);
  part('confirm-title').textContent = title;
  part('confirm-text').textContent = text;
  part('confirm-ok').textContent = ok;
  return new Promise((resolve) => {
    const finish = (answer) => {
      part('confirm-ok').removeEventListener('click', yes);
      part('confirm-cancel').removeEventListener('click', no);
      dialog.removeEventListener('cancel', no);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const yes = () => finish(true);
    const no = () => finish(false);
    part('confirm-ok').addEventListener('click', yes);
    part('confirm-cancel').addEventListener('click', no);
    dialog.addEventListener('cancel', no);
    dialog.showModal();
    part('confirm-cancel').focus();
  });
}
