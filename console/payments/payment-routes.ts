// The member API's top-ups (docs/console.md): an organization's payments, and a Checkout Session for an
// admin's top-up within the operator's bounds. With payments off, the list says so (`enabled: false`; the
// payments made before still show) and a Checkout Session is a 404 that says so.
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { AdminRoute } from '../../admin/routes.js';
import { paymentBody } from '../../admin/bodies.js';
import { AdminError } from '../../admin/errors.js';
import { readObject } from '../../admin/http.js';
import type { Sessions } from '../../admin/session.js';
import type { PaymentsConfig } from '../../config/types.js';
import { formatCredits, parseCredits } from '../../store/credits.js';
import { MICROS_PER_CENT } from '../../store/payments.js';
import type { Store } from '../../store/store.js';
import { requireMember } from '../member-session.js';
import { orgOfMember, requireAdmin } from '../org-access.js';
import { openCheckout, type CheckoutOptions } from './checkout.js';

export interface PaymentRoutesOptions {
  store: () => Promise<Store>;
  sessions: Sessions;
  config: PaymentsConfig;
  /** Stripe and where Checkout returns; undefined while payments are off. */
  checkout: CheckoutOptions | undefined;
  log: Logger;
}

const ORG = '([^/]+)';

export function paymentRoutes(options: PaymentRoutesOptions): AdminRoute[] {
  const { config } = options;
  const access = async (req: IncomingMessage, orgId: string) => {
    const member = await requireMember(options.sessions, req);
    const s = await options.store();
    return { ...(await orgOfMember(s, orgId, member.email)), member, s };
  };
  const checkoutOn = (): CheckoutOptions => {
    if (options.checkout === undefined)
      throw new AdminError('not_found', 'payments are off on this gateway: the operator has not set up Stripe');
    return options.checkout;
  };
  return [
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/payments$`),
      async handle({ req, params: [orgId] }) {
        const { org, s } = await access(req, orgId!);
        return {
          status: 200,
          body: {
            enabled: options.checkout !== undefined,
            currency: config.currency,
            min: formatCredits(config.min_micros),
            min_micros: config.min_micros,
            max: formatCredits(config.max_micros),
            max_micros: config.max_micros,
            payments: (await s.payments.list(org.id)).map(paymentBody),
          },
        };
      },
    },
    {
      method: 'POST',
      path: new RegExp(`^/console/v1/orgs/${ORG}/payments/checkout$`),
      async handle({ req, params: [orgId] }) {
        const found = await access(req, orgId!);
        const checkout = checkoutOn();
        requireAdmin(found, 'add credits');
        const amountMicros = amountField(await readObject(req), config);
        try {
          const opened = await openCheckout(checkout, found.s, found.org, found.member.email, amountMicros);
          options.log.info(
            { org: found.org.id, payment: opened.payment.id, session: opened.payment.checkoutSessionId, amountMicros },
            'stripe: checkout session opened',
          );
          return { status: 201, body: { url: opened.url, payment: paymentBody(opened.payment) } };
        } catch (error) {
          if (error instanceof AdminError) throw error;
          options.log.error({ org: found.org.id, err: (error as Error).message }, 'stripe: no checkout session');
          throw new AdminError('unavailable', 'the payment could not be started at Stripe; try again later');
        }
      },
    },
  ];
}

/** `amount` in credits ("25", "12.50", or a number): whole cents, within the operator's bounds. */
function amountField(body: Record<string, unknown>, config: PaymentsConfig): number {
  const { amount } = body;
  if (typeof amount !== 'string' && typeof amount !== 'number')
    throw new AdminError('invalid_request', '\'amount\' must be an amount of credits, e.g. "25" or "12.50"', 'amount');
  let micros: number;
  try {
    micros = parseCredits(String(amount));
  } catch (error) {
    throw new AdminError('invalid_request', (error as Error).message, 'amount');
  }
  if (micros % MICROS_PER_CENT !== 0)
    throw new AdminError('invalid_request', `'amount' must be a whole number of cents, not ${amount}`, 'amount');
  if (micros < config.min_micros || micros > config.max_micros)
    throw new AdminError(
      'invalid_request',
      `'amount' must be between ${formatCredits(config.min_micros)} and ${formatCredits(config.max_micros)} credits`,
      'amount',
    );
  return micros;
}
