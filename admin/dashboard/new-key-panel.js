// The box that shows a new API key, once: the key in a read-only field, a Copy button (the clipboard,
// else the key selected for Ctrl+C), and a button that hides it. The key exists only there and in memory
// until the box is hidden.

import { el } from './page-dom.js';

/** Returns the box (`element`, hidden until `show(key)`) and `hide()`, which also forgets the key. */
export function newKeyPanel() {
  const value = el('input', {
    readonly: true,
    spellcheck: 'false',
    'aria-label': 'The new API key',
    'data-testid': 'new-key-value',
  });
  const copy = el('button', { type: 'button', 'data-testid': 'new-key-copy' }, 'Copy');
  const copied = el('p', { class: 'muted', 'data-testid': 'new-key-copied', hidden: true });
  const done = el(
    'button',
    { type: 'button', class: 'link', 'data-testid': 'new-key-done' },
    'I have stored it: hide the key',
  );
  const element = el(
    'div',
    { class: 'new-key', 'data-testid': 'new-key', hidden: true },
    el(
      'p',
      { class: 'warning', 'data-testid': 'new-key-warning' },
      el('strong', {}, 'Copy this key now.'),
      ' It will not be shown again: the gateway keeps only its hash.',
    ),
    el('div', { class: 'copy-row' }, value, copy),
    copied,
    done,
  );

  function hide() {
    value.value = '';
    element.hidden = true;
  }

  done.addEventListener('click', hide);

  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value.value);
      copied.textContent = 'Copied to the clipboard.';
    } catch {
      // No clipboard access (an insecure origin, a denied permission): select it for Ctrl+C / ⌘C.
      value.focus();
      value.select();
      copied.textContent = document.execCommand?.('copy')
        ? 'Copied to the clipboard.'
        : 'Selected: press Ctrl+C (⌘C) to copy.';
    }
    copied.hidden = false;
  });

  return {
    element,
    show(key) {
      value.value = key;
      copied.hidden = true;
      element.hidden = false;
    },
    hide,
  };
}
