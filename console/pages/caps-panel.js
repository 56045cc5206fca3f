// Caps in the members' console (docs/console.md): "My caps", every member's view of its own caps and its
// active keys' with what each has used (spend this UTC day, week and month, settled and held; requests
// in flight); and for an organization's admins, every cap set in the organization and a form that sets
// or clears a key's or a member's caps. Spend caps are integer micro-credits, as the API takes them.
// Built with DOM calls, text as text.

import { formatCredits } from './audit-log.js';
import { byTestId, el, showError, table } from './page-dom.js';
import { number } from './page-format.js';

/** The caps, by their API field, with the label the page shows; the spend caps first. */
const CAPS = [
  ['day_micros', 'Day'],
  ['week_micros', 'Week'],
  ['month_micros', 'Month'],
  ['requests_per_minute', 'Requests/min'],
  ['input_tokens_per_minute', 'Input tokens/min'],
  ['output_tokens_per_minute', 'Output tokens/min'],
  ['concurrent_requests', 'In flight'],
];
const SPEND = new Set(['day_micros', 'week_micros', 'month_micros']);

/** A cap's cell: spend and requests in flight as "used of cap", rates as the cap; "—" when no cap is set. */
function capCell(field, caps, use) {
  const cap = caps[field];
  if (SPEND.has(field)) {
    const used = formatCredits(use[field]);
    return cap === undefined ? `${used} credits (no cap)` : `${used} of ${formatCredits(cap)} credits`;
  }
  if (field === 'concurrent_requests')
    return cap === undefined ? `${use.concurrent_requests} (no cap)` : `${use.concurrent_requests} of ${number(cap)}`;
  return cap === undefined ? '—' : number(cap);
}

const capsText = (caps) =>
  CAPS.filter(([field]) => caps[field] !== undefined)
    .map(
      ([field, label]) =>
        `${label}: ${SPEND.has(field) ? `${formatCredits(caps[field])} credits` : number(caps[field])}`,
    )
    .join(', ') || 'no caps';

/**
 * Fills `container`; `show(orgPath, {email, admin})` loads the caps of the organization whose API path
 * `orgPath(suffix)` gives; `api(method, path, body)` calls the console API; `onChange()` follows a change
 * (the audit log shows it).
 */
export function capsPanel(container, api, onChange) {
  let orgPath = () => '';
  const error = el('p', { class: 'error', role: 'alert', 'data-testid': 'caps-error', hidden: true });
  const mineRows = el('tbody', { 'data-testid': 'my-caps-rows' });
  const allRows = el('tbody', { 'data-testid': 'org-caps-rows' });
  const whose = el('select', { 'data-testid': 'caps-whose', 'aria-label': 'Whose caps' });
  const inputs = Object.fromEntries(
    CAPS.map(([field, label]) => [
      field,
      el('input', {
        type: 'number',
        min: '0',
        step: '1',
        inputmode: 'numeric',
        placeholder: 'no cap',
        'data-testid': `caps-${field}`,
        'aria-label': SPEND.has(field) ? `${label} (micro-credits)` : label,
      }),
    ]),
  );
  const form = el(
    'form',
    { class: 'caps-form', 'data-testid': 'caps-form' },
    el('label', {}, 'Whose ', whose),
    ...CAPS.map(([field, label]) =>
      el('label', {}, SPEND.has(field) ? `${label} (micro-credits) ` : `${label} `, inputs[field]),
    ),
    el(
      'div',
      { class: 'inline' },
      el('button', { type: 'submit', class: 'primary', 'data-testid': 'caps-save' }, 'Save caps'),
      el('button', { type: 'button', class: 'danger-outline', 'data-testid': 'caps-clear' }, 'Clear caps'),
    ),
  );
  const admin = el(
    'div',
    { 'data-testid': 'caps-admin', hidden: true },
    el('h3', {}, 'Caps in this organization'),
    table({ class: 'keys', 'data-testid': 'org-caps-table' }, ['Whose', 'Caps', 'Set by'], allRows),
    form,
    el(
      'p',
      { class: 'muted' },
      'A spend cap counts micro-credits (1 credit = 1,000,000) per UTC day, week from Monday, or month; an empty field is no cap.',
    ),
  );
  container.replaceChildren(
    el('h2', { id: 'caps' }, 'Caps'),
    el('h3', {}, 'My caps'),
    table({ class: 'keys', 'data-testid': 'my-caps-table' }, ['Whose', ...CAPS.map(([, label]) => label)], mineRows),
    admin,
    error,
  );

  const targetPath = (value) => {
    const [kind, id] = [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)];
    return orgPath(`/${kind === 'key' ? 'keys' : 'members'}/${encodeURIComponent(id)}/caps`);
  };
  const guarded = (work) => async (event) => {
    event?.preventDefault();
    error.hidden = true;
    try {
      await work();
    } catch (failure) {
      showError(error, failure);
    }
  };

  async function fillForm() {
    const { caps } = await api('GET', targetPath(whose.value));
    for (const [field] of CAPS) inputs[field].value = caps[field] === undefined ? '' : String(caps[field]);
  }

  async function showAll(names) {
    const { caps } = await api('GET', orgPath('/caps'));
    allRows.replaceChildren(
      ...caps.map((entry) =>
        el(
          'tr',
          { 'data-testid': 'org-caps-row' },
          el('td', {}, entry.scope === 'key' ? `key ${names.get(entry.key_id) ?? entry.key_id}` : entry.email),
          el('td', {}, capsText(entry.caps)),
          el('td', {}, entry.updated_by),
        ),
      ),
    );
  }

  let refresh = async () => {};
  whose.addEventListener('change', guarded(fillForm));
  form.addEventListener(
    'submit',
    guarded(async () => {
      const body = {};
      for (const [field] of CAPS) {
        const text = inputs[field].value.trim();
        body[field] = text === '' ? null : Number(text);
      }
      await api('PUT', targetPath(whose.value), body);
      await Promise.all([refresh(), onChange()]);
    }),
  );
  byTestId('caps-clear', form).addEventListener(
    'click',
    guarded(async () => {
      await api('DELETE', targetPath(whose.value));
      await Promise.all([refresh(), onChange()]);
    }),
  );

  return {
    async show(pathOf, { email, admin: isAdmin }) {
      orgPath = pathOf;
      error.hidden = true;
      admin.hidden = !isAdmin;
      const [{ keys }, { members }] = await Promise.all([
        api('GET', orgPath('/keys')),
        api('GET', orgPath('/members')),
      ]);
      const active = keys.filter((key) => key.status === 'active');
      const names = new Map(keys.map((key) => [key.id, key.name]));
      const mine = async () => {
        const own = active.filter((key) => key.created_by === email);
        const rows = await Promise.all([
          api('GET', orgPath(`/members/${encodeURIComponent(email)}/caps`)).then((body) => ['You', body]),
          ...own.map((key) =>
            api('GET', orgPath(`/keys/${encodeURIComponent(key.id)}/caps`)).then((body) => [`Key “${key.name}”`, body]),
          ),
        ]);
        mineRows.replaceChildren(
          ...rows.map(([label, body]) =>
            el(
              'tr',
              { 'data-testid': 'my-caps-row' },
              el('td', {}, label),
              ...CAPS.map(([field]) => el('td', { 'data-field': field }, capCell(field, body.caps, body.use))),
            ),
          ),
        );
      };
      refresh = async () => {
        await Promise.all([mine(), isAdmin ? showAll(names) : null]);
        if (isAdmin) await fillForm();
      };
      if (isAdmin) {
        const selected = whose.value;
        whose.replaceChildren(
          ...members.map((member) => el('option', { value: `member:${member.email}` }, `member ${member.email}`)),
          ...active.map((key) => el('option', { value: `key:${key.id}` }, `key “${key.name}” (…${key.last4})`)),
        );
        if ([...whose.options].some((option) => option.value === selected)) whose.value = selected;
      }
      await refresh();
    },
  };
}
