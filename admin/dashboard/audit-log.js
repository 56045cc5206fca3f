// An organization's audit log as a table, for the operator's dashboard and the members' console: a row
// per entry with when, who, from which address, what (a readable action name) and on what. Built with
// DOM calls, text as text (the pages' CSP allows no inline code, and the entries hold what people typed).

import { el, table } from './page-dom.js';

const ACTIONS = {
  'org.created': 'Organization created',
  'key.created': 'Key created',
  'key.revoked': 'Key revoked',
  'member.added': 'Member added',
  'member.removed': 'Member removed',
  'member.role_changed': 'Role changed',
  'credits.added': 'Credits added',
  'caps.set': 'Caps set',
  'caps.cleared': 'Caps cleared',
};

const MICROS_PER_CREDIT = 1_000_000;

/** 12_500_000 → "12.5", as the API formats credits. */
export function formatCredits(micros) {
  const whole = Math.floor(micros / MICROS_PER_CREDIT);
  const fraction = String(micros % MICROS_PER_CREDIT)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

/** The action's readable name; an action this page does not know shows as the API names it. */
export const actionName = (action) => ACTIONS[action] ?? action;

/** What the entry was about, in words: a key's name, a member and role, an amount. */
export function subjectOf(entry) {
  const { detail, subject } = entry;
  switch (entry.action) {
    case 'org.created':
      return detail.name ?? '';
    case 'key.created':
    case 'key.revoked':
      return detail.name === undefined ? (subject ?? '') : `“${detail.name}” (${subject})`;
    case 'member.added':
      return detail.role === undefined ? (subject ?? '') : `${subject} as ${detail.role}`;
    case 'member.role_changed':
      return `${subject}: ${detail.previous_role ?? '?'} → ${detail.role}`;
    case 'credits.added':
      return typeof detail.amount_micros === 'number' ? `+${formatCredits(detail.amount_micros)} credits` : '';
    default:
      return subject ?? '';
  }
}

const COLUMNS = ['When', 'Who', 'From', 'What', 'On what'];

/** One <tr data-testid="audit-row" data-action=…> per entry, newest first as the API gives them. */
function auditRow(entry) {
  const time = el('time', { datetime: entry.created_at }, new Date(entry.created_at).toLocaleString());
  return el(
    'tr',
    { 'data-testid': 'audit-row', 'data-action': entry.action },
    el('td', { 'data-testid': 'audit-when' }, time),
    el('td', { 'data-testid': 'audit-actor' }, entry.actor),
    el('td', { 'data-testid': 'audit-address' }, entry.address ?? '—'),
    el('td', { 'data-testid': 'audit-action' }, actionName(entry.action)),
    el('td', { 'data-testid': 'audit-subject' }, subjectOf(entry)),
  );
}

/**
 * Fills `container` with the log's heading (#audit) and table; `show()` loads the entries with `load()`
 * (the API's `{entries}`) and lists them.
 */
export function auditLog(container, load) {
  const rows = el('tbody', { 'data-testid': 'audit-rows' });
  const empty = el('p', { class: 'muted', 'data-testid': 'audit-empty', hidden: true }, 'Nothing yet.');
  container.replaceChildren(
    el('h2', { id: 'audit' }, 'Audit log'),
    table({ class: 'keys audit', 'data-testid': 'audit-table' }, COLUMNS, rows),
    empty,
  );
  return {
    async show() {
      const { entries } = await load();
      rows.replaceChildren(...entries.map(auditRow));
      empty.hidden = entries.length > 0;
    },
  };
}
