// A top-up begins: a payment row (ours, `pay_…`), then a Stripe Checkout Session for its amount with the
// payment and the organization in its metadata (what the webhook checks), then the session's id on the row.
// The member's browser goes to the session's URL; the credits come with the signed webhook, not from here.
import type Stripe from 'stripe';
import type { PaymentsConfig } from '../../config/types.js';
import { formatCredits } from '../../store/credits.js';
import type { Org } from '../../store/orgs.js';
import { MICROS_PER_CENT, type Payment } from '../../store/payments.js';
import type { Store } from '../../store/store.js';

export interface CheckoutOptions {
  stripe: Stripe;
  config: PaymentsConfig;
  /** The console's public URL: where Checkout sends the member back by default. */
  publicUrl: string;
}

export interface OpenedCheckout {
  payment: Payment;
  /** The Checkout page. */
  url: string;
}

/** Opens a Checkout Session for `amountMicros` (whole cents, within the bounds: the caller checked). */
export async function openCheckout(
  options: CheckoutOptions,
  store: Store,
  org: Org,
  email: string,
  amountMicros: number,
): Promise<OpenedCheckout> {
  const { stripe, config } = options;
  const payment = await store.payments.open({
    orgId: org.id,
    amountCents: amountMicros / MICROS_PER_CENT,
    currency: config.currency,
    createdBy: email,
  });
  const back = `${options.publicUrl}/#/orgs/${encodeURIComponent(org.id)}`;
  const metadata = { org_id: org.id, payment_id: payment.id };
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: config.currency,
              unit_amount: payment.amountCents,
              product_data: { name: `${formatCredits(amountMicros)} credits for ${org.name}` },
            },
          },
        ],
        metadata,
        payment_intent_data: { metadata },
        client_reference_id: payment.id,
        customer_email: email,
        success_url: config.success_url ?? back,
        cancel_url: config.cancel_url ?? back,
      },
      // A retried call (the SDK's own, on a network failure) makes no second session.
      { idempotencyKey: payment.id },
    );
  } catch (error) {
    await store.payments.discard(payment.id);
    throw error;
  }
  if (session.url === null) throw new Error(`Stripe made Checkout Session ${session.id} without a URL`);
  await store.payments.attachSession(payment.id, session.id);
  return { payment: { ...payment, checkoutSessionId: session.id }, url: session.url };
}
