// An organization's batches in the members' console (docs/console.md): both batch APIs' batches, newest first,
// each with its status, its requests' counts, its cost so far in credits, when it was made and by which key,
// and for an ended batch a Download link to its results (JSONL, one line per request). Hidden where the
// gateway runs no batches. Built with DOM calls, text as text.

import { el, showError, table } from './page-dom.js';
import { number } from './page-format.js';

/** The statuses in words (OpenAI's names, which both APIs' batches have in the store). */
const STATUS = {
  validating: 'validating',
  in_progress: 'in progress',
  finalizing: 'finalizing',
  completed: 'completed',
  failed: 'failed',
  expired: 'expired',
  cancelling: 'cancelling',
  cancelled: 'cancelled',
};
const API = { openai: 'OpenAI', anthropic: 'Anthropic' };
/** The counts a row shows, by their field, with their label; those at 0 are left out. */
const COUNTS = [
  ['succeeded', 'succeeded'],
  ['errored', 'errored'],
  ['canceled', 'canceled'],
  ['expired', 'expired'],
  ['running', 'running'],
  ['queued', 'queued'],
];

const countsText = (counts) =>
  [
    `${number(counts.total)} ${counts.total === 1 ? 'request' : 'requests'}`,
    ...COUNTS.filter(([field]) => counts[field] > 0).map(([field, label]) => `${number(counts[field])} ${label}`),
  ].join(', ');

/** Fills `container`; `api(method, path, body)` calls the console API. */
export function batchesPanel(container, api) {
  let orgPath = () => '';
  let lastId = null;
  const rows = el('tbody', { 'data-testid': 'batch-rows' });
  const empty = el('p', { class: 'muted', 'data-testid': 'batch-empty', hidden: true }, 'No batches yet.');
  const more = el('button', { type: 'button', 'data-testid': 'batch-more', hidden: true }, 'Show more');
  const error = el('p', { class: 'error', role: 'alert', 'data-testid': 'batch-error', hidden: true });
  container.replaceChildren(
    el('h2', { id: 'batches' }, 'Batches'),
    error,
    table(
      { class: 'keys', 'data-testid': 'batch-table' },
      ['Made', 'Batch', 'Status', 'Requests', 'Cost', 'Key', 'Results'],
      rows,
    ),
    empty,
    more,
  );

  const row = (batch) =>
    el(
      'tr',
      { 'data-testid': 'batch-row', 'data-batch-id': batch.id, 'data-status': batch.status },
      el('td', {}, el('time', { datetime: batch.created_at }, new Date(batch.created_at).toLocaleString())),
      el(
        'td',
        {},
        el('code', {}, batch.id),
        el('div', { class: 'muted small' }, `${API[batch.api]} ${batch.endpoint}`),
      ),
      el('td', { 'data-testid': 'batch-status' }, STATUS[batch.status] ?? batch.status),
      el('td', { 'data-testid': 'batch-counts' }, countsText(batch.request_counts)),
      el('td', { 'data-testid': 'batch-cost' }, `${batch.cost} credits`),
      el('td', {}, batch.key.name === null ? batch.key.id : `${batch.key.name} (…${batch.key.last4})`),
      el(
        'td',
        {},
        batch.ended
          ? el(
              'a',
              {
                href: orgPath(`/batches/${encodeURIComponent(batch.id)}/results`),
                download: '',
                'data-testid': 'batch-download',
              },
              'Download',
            )
          : '',
      ),
    );

  async function page(after) {
    const query = after === null ? '' : `?after=${encodeURIComponent(after)}`;
    const answer = await api('GET', orgPath(`/batches${query}`));
    if (after === null) rows.replaceChildren();
    rows.append(...answer.batches.map(row));
    lastId = answer.last_id ?? lastId;
    more.hidden = !answer.has_more;
    empty.hidden = rows.childElementCount > 0;
  }

  more.addEventListener('click', async () => {
    error.hidden = true;
    try {
      await page(lastId);
    } catch (failure) {
      showError(error, failure);
    }
  });

  return {
    /** Shows the organization's newest batches (`path(suffix)` is its API path); hidden when `enabled` is false. */
    async show(path, enabled) {
      orgPath = path;
      container.hidden = !enabled;
      error.hidden = true;
      if (!enabled) return;
      lastId = null;
      await page(null);
    },
  };
}
