// An organization's audit log as table rows, for the operator's dashboard and the members' console:
// when, who, from which address, what (a readable action name) and on what. Built with DOM calls, text
// as text (the pages' CSP allows no inline code, and the entries hold what people typed).

const ACTIONS = {
  'org.created': 'Organization created',
  'key.created': 'Key created',
  'key.revoked': 'Key revoked',
  'member.added': 'Member added',
  'member.removed': 'Member removed',
  'member.role_changed': 'Role changed',
  'credits.added': 'Credits added',
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

function cell(text, testId) {
  const td = document.createElement('td');
  if (testId !== undefined) td.dataset.testid = testId;
  td.textContent = text;
  return td;
}

/** One <tr data-testid="audit-row" data-action=…> per entry, newest first as the API gives them. */
export function auditRows(entries) {
  return entries.map((entry) => {
    const row = document.createElement('tr');
    row.dataset.testid = 'audit-row';
    row.dataset.action = entry.action;
    const time = document.createElement('time');
    time.dateTime = entry.created_at;
    time.textContent = new Date(entry.created_at).toLocaleString();
    const when = cell('', 'audit-when');
    when.append(time);
    row.append(
      when,
      cell(entry.actor, 'audit-actor'),
      cell(entry.address ?? '—', 'audit-address'),
      cell(actionName(entry.action), 'audit-action'),
      cell(subjectOf(entry), 'audit-subject'),
    );
    return row;
  });
}
