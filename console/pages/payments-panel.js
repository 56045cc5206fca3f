// An organization's top-ups in the members' console (docs/console.md): its payments (date, amount, status,
// who paid), and for its admins a form that opens a Stripe Checkout page for an amount within the
// operator's bounds; the credits come when Stripe's signed webhook says the payment went through. Hidden
// where the gateway takes no payments and has none to show. Built with DOM calls, text as text.

import { el, showError, table } from './page-dom.js';

const STATUS = { open: 'not paid', complete: 'paid', expired: 'expired' };

/** Fills `container`; `api(method, path, body)` calls the console API. */
export function paymentsPanel(container, api) {
  let orgPath = () => '';
  const rows = el('tbody', { 'data-testid': 'payment-rows' });
  const bounds = el('p', { class: 'muted', 'data-testid': 'payment-bounds' });
  const amount = el('input', {
    'data-testid': 'payment-amount',
    'aria-label': 'Credits to add',
    inputmode: 'decimal',
    required: true,
    placeholder: '25',
  });
  const error = el('p', { class: 'error', role: 'alert', 'data-testid': 'payment-error', hidden: true });
  const form = el(
    'form',
    { class: 'inline', 'data-testid': 'payment-form', hidden: true },
    amount,
    el('button', { type: 'submit', class: 'primary', 'data-testid': 'payment-submit' }, 'Add credits'),
  );
  const empty = el('p', { class: 'muted', 'data-testid': 'payment-empty', hidden: true }, 'No payments yet.');
  container.append(
    el('h2', { id: 'payments' }, 'Payments'),
    bounds,
    form,
    error,
    table({ class: 'keys', 'data-testid': 'payment-table' }, ['Date', 'Credits', 'Paid', 'Status', 'By'], rows),
    empty,
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    try {
      const { url } = await api('POST', orgPath('/payments/checkout'), { amount: amount.value.trim() });
      // Stripe's Checkout page; it sends the member back to this organization's page.
      location.assign(url);
    } catch (failure) {
      showError(error, failure);
    }
  });

  return {
    /** Shows the organization's payments (`path(suffix)` is its API path); the form for its admins. */
    async show(path, admin) {
      orgPath = path;
      const answer = await api('GET', orgPath('/payments'));
      container.hidden = !answer.enabled && answer.payments.length === 0;
      bounds.hidden = !answer.enabled;
      bounds.textContent = `Add from ${answer.min} to ${answer.max} credits at a time, paid by card through Stripe (1 credit = 1 ${answer.currency.toUpperCase()}).`;
      form.hidden = !admin || !answer.enabled;
      error.hidden = true;
      rows.replaceChildren(
        ...answer.payments.map((payment) =>
          el(
            'tr',
            { 'data-testid': 'payment-row', 'data-status': payment.status },
            el('td', {}, el('time', { datetime: payment.created_at }, new Date(payment.created_at).toLocaleString())),
            el('td', { 'data-testid': 'payment-credits' }, payment.amount),
            el('td', {}, `${(payment.amount_cents / 100).toFixed(2)} ${payment.currency.toUpperCase()}`),
            el('td', { 'data-testid': 'payment-status' }, STATUS[payment.status] ?? payment.status),
            el('td', {}, payment.created_by),
          ),
        ),
      );
      empty.hidden = answer.payments.length > 0;
    },
  };
}
