// POST /webhooks/stripe on the console's listener, where the operator points a Stripe webhook endpoint
// (docs/billing.md, "Payments"). The signature over the raw body and its timestamp (within five minutes)
// are checked by the SDK before anything is read. A paid Checkout Session grants its credits once
// (store/payments.ts); a retried, replayed or concurrent delivery is answered 200 and changes nothing, so
// Stripe stops retrying. A forged, stale or malformed delivery, or a session that is not one we made, is a
// 400 that changes nothing (and is logged). Other event types are acknowledged and ignored.
import type { Logger } from 'pino';
import Stripe from 'stripe';
import { AdminError } from '../../admin/errors.js';
import type { AdminRoute, RouteAnswer } from '../../admin/routes.js';
import type { Store } from '../../store/store.js';
import { paidSessionOf, sessionIdOf } from './checkout-event.js';
import { readRawBody } from './raw-body.js';
import type { ReceiptMail } from './receipt-mail.js';

/** How old a delivery's signed timestamp may be, in seconds (the SDK's default; a replay past it is refused). */
export const SIGNATURE_TOLERANCE_S = 300;
/** Stripe's events are a few kilobytes. */
const MAX_EVENT_BYTES = 256 * 1024;

export interface StripeWebhookOptions {
  stripe: Stripe;
  webhookSecret: string;
  store: () => Promise<Store>;
  /** Receipts to the member who paid; undefined without `mail.url`. */
  receipts: ReceiptMail | undefined;
  log: Logger;
}

export function stripeWebhookRoute(options: StripeWebhookOptions): AdminRoute {
  const { log } = options;
  return {
    method: 'POST',
    path: /^\/webhooks\/stripe$/,
    async handle({ req }) {
      try {
        return await answer(options, await readRawBody(req, MAX_EVENT_BYTES), req.headers['stripe-signature']);
      } catch (error) {
        if (error instanceof AdminError && error.status < 500)
          log.warn({ reason: error.message, field: error.field }, 'stripe: webhook delivery refused');
        throw error;
      }
    },
  };
}

async function answer(
  options: StripeWebhookOptions,
  raw: Buffer,
  header: string | string[] | undefined,
): Promise<RouteAnswer> {
  const { log } = options;
  const event = verifiedEvent(options, raw, header);
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return grant(options, event);
    case 'checkout.session.expired': {
      const expired = await (await options.store()).payments.expire(sessionIdOf(event));
      log.info({ event: event.id, session: sessionIdOf(event), expired }, 'stripe: checkout session expired');
      return { status: 200, body: { received: true } };
    }
    default:
      log.debug({ event: event.id, type: event.type }, 'stripe: event ignored');
      return { status: 200, body: { received: true, ignored: true } };
  }
}

/** The event, if the signature over the raw bytes is the secret's and recent; else a 400. */
function verifiedEvent(
  options: StripeWebhookOptions,
  raw: Buffer,
  header: string | string[] | undefined,
): Stripe.Event {
  const refuse = (message: string, field: string): AdminError => new AdminError('invalid_request', message, field);
  if (typeof header !== 'string' || header === '')
    throw refuse('the Stripe-Signature header is missing', 'stripe-signature');
  try {
    return options.stripe.webhooks.constructEvent(raw, header, options.webhookSecret, SIGNATURE_TOLERANCE_S);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError)
      throw refuse(`the signature does not verify: ${error.message}`, 'stripe-signature');
    throw refuse('the event is not JSON', '(body)');
  }
}

async function grant(options: StripeWebhookOptions, event: Stripe.Event): Promise<RouteAnswer> {
  const { log } = options;
  const paid = paidSessionOf(event);
  if (paid === 'unpaid') {
    // An asynchronous payment method: checkout.session.async_payment_succeeded comes when it is paid.
    log.info({ event: event.id }, 'stripe: checkout session completed unpaid; waiting for the payment');
    return { status: 200, body: { received: true, granted: false } };
  }
  const store = await options.store();
  const outcome = await store.payments.grant(paid);
  const about = { event: event.id, session: paid.sessionId };
  switch (outcome.outcome) {
    case 'refused':
      throw new AdminError('invalid_request', `event ${event.id}: ${outcome.reason}`, 'data.object');
    case 'already_granted':
      log.info({ ...about, payment: outcome.payment.id }, 'stripe: payment already credited');
      return { status: 200, body: { received: true, granted: false, payment: outcome.payment.id } };
    case 'granted': {
      const { payment } = outcome;
      log.info(
        { ...about, payment: payment.id, org: payment.orgId, amountMicros: payment.amountMicros },
        'stripe: payment credited',
      );
      if (options.receipts !== undefined) {
        const org = await store.orgs.get(payment.orgId);
        options.receipts.send({ payment, orgName: org.name, balanceMicros: org.balanceMicros });
      }
      return { status: 200, body: { received: true, granted: true, payment: payment.id } };
    }
  }
}
