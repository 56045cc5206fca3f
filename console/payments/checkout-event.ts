// What a verified Checkout Session event says, read field by field: a delivery whose signature verifies may
// still lack a field (or be another API version's shape), and that is a 400 naming the field, never a 500.
import type Stripe from 'stripe';
import { AdminError } from '../../admin/errors.js';
import type { PaidSession } from '../../store/payments.js';

/** The session of a `checkout.session.*` event. */
export function sessionIdOf(event: Stripe.Event): string {
  const session = sessionObject(event);
  if (typeof session.id !== 'string' || !session.id.startsWith('cs_'))
    throw invalid('data.object.id', 'a Checkout Session id (cs_…)');
  return session.id;
}

/** A completed session's payment, or 'unpaid' while its (asynchronous) payment is pending. */
export function paidSessionOf(event: Stripe.Event): PaidSession | 'unpaid' {
  const session = sessionObject(event);
  const sessionId = sessionIdOf(event);
  if (typeof session.payment_status !== 'string') throw invalid('data.object.payment_status', 'a string');
  if (session.payment_status !== 'paid') return 'unpaid';
  const amount = session.amount_total;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0)
    throw invalid('data.object.amount_total', 'a positive whole number of cents');
  if (typeof session.currency !== 'string') throw invalid('data.object.currency', 'a currency code');
  const metadata = session.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw invalid('data.object.metadata', 'an object');
  const { org_id: orgId, payment_id: paymentId } = metadata as Record<string, unknown>;
  const intent = session.payment_intent;
  return {
    eventId: event.id,
    sessionId,
    paymentIntent: typeof intent === 'string' ? intent : typeof intent?.id === 'string' ? intent.id : null,
    amountCents: amount,
    currency: session.currency,
    orgId: typeof orgId === 'string' ? orgId : undefined,
    paymentId: typeof paymentId === 'string' ? paymentId : undefined,
  };
}

type SessionFields = Partial<Record<keyof Stripe.Checkout.Session, unknown>> & {
  payment_intent?: string | { id?: unknown } | null;
};

function sessionObject(event: Stripe.Event): SessionFields {
  const data: unknown = event.data;
  const object = typeof data === 'object' && data !== null ? (data as { object?: unknown }).object : undefined;
  if (typeof object !== 'object' || object === null) throw invalid('data.object', 'a Checkout Session');
  return object as SessionFields;
}

function invalid(field: string, what: string): AdminError {
  return new AdminError('invalid_request', `the event's ${field} must be ${what}`, field);
}
