// An organization's alerts in the members' console (its admins only; docs/console.md): the alert rules
// (a balance below N credits; a percentage of a key's or a member's spend cap in a day, week or month),
// the webhook endpoints (the signing secret shown once, at creation; a test event; disable; delete) and
// one endpoint's delivery log, a row per attempt with its status. Built with DOM calls, text as text.

import { formatCredits } from './audit-log.js';
import { byTestId, el, showError, table } from './page-dom.js';

/** "12.5" credits → 12500000 micro-credits, exactly (no floating point); NaN when it is not a number of credits. */
function creditsToMicros(text) {
  const match = /^(\d{1,10})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (match === null) return NaN;
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? '').padEnd(6, '0'));
}

function ruleText(rule) {
  if (rule.kind === 'balance_below') return `Balance below ${formatCredits(rule.threshold_micros)} credits`;
  return `${rule.threshold_pct}% of the ${rule.period} cap of ${rule.scope} ${rule.scope_id}`;
}

const time = (iso) => (iso === null ? '—' : el('time', { datetime: iso }, new Date(iso).toLocaleString()));

/**
 * Fills `container`; `show(orgPath)` loads the organization's rules and endpoints (`orgPath(suffix)` is
 * the API path of the organization), `api(method, path, body)` calls the console API.
 */
export function alertsPanel(container, api) {
  let orgPath = () => '';
  const error = el('p', { class: 'error', role: 'alert', 'data-testid': 'alerts-error', hidden: true });
  const ruleRows = el('tbody', { 'data-testid': 'alert-rule-rows' });
  const endpointRows = el('tbody', { 'data-testid': 'webhook-rows' });
  const deliveryRows = el('tbody', { 'data-testid': 'delivery-rows' });
  const deliveries = el(
    'div',
    { 'data-testid': 'delivery-log', hidden: true },
    el('h3', { 'data-testid': 'delivery-log-title' }, 'Delivery log'),
    table(
      { class: 'keys', 'data-testid': 'delivery-table' },
      ['When', 'Event', 'Attempt', 'Status', 'Answer', 'Error'],
      deliveryRows,
    ),
  );
  const secretBox = el(
    'div',
    { class: 'new-key', 'data-testid': 'webhook-secret-box', hidden: true },
    el('p', {}, 'The signing secret, shown only now: keep it where your receiver reads it.'),
    el('code', { 'data-testid': 'webhook-secret' }),
  );

  const kind = el(
    'select',
    { 'data-testid': 'rule-kind', 'aria-label': 'Alert kind' },
    el('option', { value: 'balance_below' }, 'Balance below (credits)'),
    el('option', { value: 'cap_pct' }, 'Percent of a spend cap'),
  );
  const threshold = el('input', {
    'data-testid': 'rule-threshold',
    'aria-label': 'Threshold',
    required: true,
    placeholder: '10',
  });
  const scope = el(
    'select',
    { 'data-testid': 'rule-scope', 'aria-label': 'Whose cap' },
    el('option', { value: 'key' }, 'key'),
    el('option', { value: 'member' }, 'member'),
  );
  const scopeId = el('input', {
    'data-testid': 'rule-scope-id',
    'aria-label': 'Key id or member e-mail',
    placeholder: 'key id or e-mail',
  });
  const period = el(
    'select',
    { 'data-testid': 'rule-period', 'aria-label': 'Period' },
    ...['day', 'week', 'month'].map((name) => el('option', { value: name }, name)),
  );
  const capFields = el('span', { hidden: true }, scope, scopeId, period);
  kind.addEventListener('change', () => (capFields.hidden = kind.value !== 'cap_pct'));
  const ruleForm = el(
    'form',
    { class: 'inline', 'data-testid': 'rule-form' },
    kind,
    threshold,
    capFields,
    el('button', { type: 'submit', class: 'primary', 'data-testid': 'rule-submit' }, 'Add alert'),
  );
  const url = el('input', {
    type: 'url',
    required: true,
    'data-testid': 'webhook-url',
    'aria-label': 'Endpoint URL',
    placeholder: 'https://example.com/hooks',
  });
  const description = el('input', {
    'data-testid': 'webhook-description',
    'aria-label': 'Description',
    placeholder: 'description',
  });
  const endpointForm = el(
    'form',
    { class: 'inline', 'data-testid': 'webhook-form' },
    url,
    description,
    el('button', { type: 'submit', class: 'primary', 'data-testid': 'webhook-submit' }, 'Add endpoint'),
  );

  container.replaceChildren(
    el('h2', { id: 'alerts' }, 'Alerts'),
    table({ class: 'keys', 'data-testid': 'alert-rule-table' }, ['Alert', 'State', ''], ruleRows),
    ruleForm,
    el('h3', {}, 'Webhook endpoints'),
    table({ class: 'keys', 'data-testid': 'webhook-table' }, ['URL', 'Description', 'State', ''], endpointRows),
    endpointForm,
    secretBox,
    deliveries,
    error,
  );

  const guarded = (work) => async (event) => {
    event?.preventDefault();
    error.hidden = true;
    try {
      await work();
    } catch (failure) {
      showError(error, failure);
    }
  };
  const button = (label, testId, work, danger = false) => {
    const node = el('button', { type: 'button', class: danger ? 'danger-outline' : '', 'data-testid': testId }, label);
    node.addEventListener('click', guarded(work));
    return node;
  };

  async function showRules() {
    const { rules } = await api('GET', orgPath('/alert-rules'));
    ruleRows.replaceChildren(
      ...rules.map((rule) =>
        el(
          'tr',
          { 'data-testid': 'alert-rule-row' },
          el('td', {}, ruleText(rule)),
          el(
            'td',
            {},
            rule.kind === 'balance_below'
              ? rule.armed
                ? 'armed'
                : 'fired (re-arms when the balance is back)'
              : 'once per period',
          ),
          el(
            'td',
            {},
            button(
              'Delete',
              'alert-rule-delete',
              async () => {
                await api('DELETE', orgPath(`/alert-rules/${encodeURIComponent(rule.id)}`));
                await showRules();
              },
              true,
            ),
          ),
        ),
      ),
    );
  }

  async function showDeliveries(endpoint) {
    const log = await api('GET', orgPath(`/webhooks/${encodeURIComponent(endpoint.id)}/deliveries`));
    byTestId('delivery-log-title', deliveries).textContent = `Delivery log: ${endpoint.url}`;
    deliveryRows.replaceChildren(
      ...log.deliveries.map((attempt) =>
        el(
          'tr',
          { 'data-testid': 'delivery-row', 'data-status': attempt.status },
          el('td', {}, time(attempt.finished_at ?? attempt.next_attempt_at)),
          el('td', {}, attempt.event_id),
          el('td', {}, String(attempt.attempt)),
          el('td', { 'data-testid': 'delivery-status' }, attempt.status),
          el('td', {}, attempt.response_status === null ? '—' : String(attempt.response_status)),
          el('td', {}, attempt.error ?? ''),
        ),
      ),
    );
    deliveries.hidden = false;
  }

  async function showEndpoints() {
    const { endpoints } = await api('GET', orgPath('/webhooks'));
    endpointRows.replaceChildren(
      ...endpoints.map((endpoint) => {
        const path = orgPath(`/webhooks/${encodeURIComponent(endpoint.id)}`);
        const enabled = endpoint.disabled_at === null;
        return el(
          'tr',
          { 'data-testid': 'webhook-row' },
          el('td', {}, endpoint.url),
          el('td', {}, endpoint.description),
          el('td', {}, enabled ? 'enabled' : 'disabled'),
          el(
            'td',
            {},
            ...(enabled
              ? [
                  button('Send test', 'webhook-test', async () => {
                    await api('POST', `${path}/test`);
                    await showDeliveries(endpoint);
                  }),
                  button('Disable', 'webhook-disable', async () => {
                    await api('POST', `${path}/disable`);
                    await showEndpoints();
                  }),
                ]
              : []),
            button('Log', 'webhook-log', () => showDeliveries(endpoint)),
            button(
              'Delete',
              'webhook-delete',
              async () => {
                await api('DELETE', path);
                deliveries.hidden = true;
                await showEndpoints();
              },
              true,
            ),
          ),
        );
      }),
    );
  }

  ruleForm.addEventListener(
    'submit',
    guarded(async () => {
      const body =
        kind.value === 'balance_below'
          ? { kind: 'balance_below', threshold_micros: creditsToMicros(threshold.value) }
          : {
              kind: 'cap_pct',
              threshold_pct: Number(threshold.value),
              scope: scope.value,
              scope_id: scopeId.value.trim(),
              period: period.value,
            };
      await api('POST', orgPath('/alert-rules'), body);
      threshold.value = '';
      await showRules();
    }),
  );
  endpointForm.addEventListener(
    'submit',
    guarded(async () => {
      const created = await api('POST', orgPath('/webhooks'), {
        url: url.value.trim(),
        description: description.value.trim(),
      });
      byTestId('webhook-secret', secretBox).textContent = created.secret;
      secretBox.hidden = false;
      url.value = '';
      description.value = '';
      await showEndpoints();
    }),
  );

  return {
    async show(pathOf) {
      orgPath = pathOf;
      secretBox.hidden = true;
      deliveries.hidden = true;
      error.hidden = true;
      await Promise.all([showRules(), showEndpoints()]);
    },
    /** Forgets the secret on the page (the view changes). */
    hideSecret() {
      byTestId('webhook-secret', secretBox).textContent = '';
      secretBox.hidden = true;
    },
  };
}
