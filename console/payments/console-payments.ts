// The console's part of self-serve top-ups, made once the listener knows its public URL: the member API's
// payment routes, the Stripe webhook, and the receipts. With the Stripe keys unset, payments are off: the
// routes answer a 404 that says so and no webhook route exists.
import type { Logger } from 'pino';
import type { AdminRoute } from '../../admin/routes.js';
import type { Sessions } from '../../admin/session.js';
import type { GatewayConfig } from '../../config/types.js';
import type { Store } from '../../store/store.js';
import { paymentRoutes } from './payment-routes.js';
import { stripeKeysOf } from './payments-config.js';
import { ReceiptMail } from './receipt-mail.js';
import { stripeClient } from './stripe-client.js';
import { stripeWebhookRoute } from './stripe-webhook.js';

export interface ConsolePaymentsOptions {
  config: GatewayConfig['payments'];
  mail: GatewayConfig['mail'];
  store: () => Promise<Store>;
  sessions: Sessions;
  publicUrl: string;
  log: Logger;
}

export interface ConsolePayments {
  /** Under /console/v1. */
  routes: AdminRoute[];
  /** Under /webhooks. */
  webhooks: AdminRoute[];
  close(): Promise<void>;
}

export function consolePayments(options: ConsolePaymentsOptions): ConsolePayments {
  const { config, store, sessions, log } = options;
  const keys = stripeKeysOf(config);
  if (keys === undefined)
    return {
      routes: paymentRoutes({ store, sessions, config, checkout: undefined, log }),
      webhooks: [],
      close: async () => {},
    };
  const stripe = stripeClient(keys.secretKey, config.stripe);
  const receipts =
    options.mail.url === undefined ? undefined : new ReceiptMail(options.mail.url, options.mail.from, log);
  return {
    routes: paymentRoutes({ store, sessions, config, checkout: { stripe, config, publicUrl: options.publicUrl }, log }),
    webhooks: [stripeWebhookRoute({ stripe, webhookSecret: keys.webhookSecret, store, receipts, log })],
    close: async () => receipts?.close(),
  };
}
