// Whether self-serve top-ups are on, and their settings checked before anything starts: both Stripe keys or
// neither, the console on (its listener takes the webhook), bounds in order, a currency with cents.
import { ConfigError } from '../../config/errors.js';
import type { GatewayConfig, PaymentsConfig } from '../../config/types.js';

/** Stripe's zero-decimal currencies: an amount in them is not in cents, which the credits are counted in. */
const ZERO_DECIMAL = new Set('bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf'.split(' '));

/** The Stripe keys, when payments are on. */
export interface StripeKeys {
  secretKey: string;
  webhookSecret: string;
}

export function stripeKeysOf(payments: PaymentsConfig): StripeKeys | undefined {
  const { secret_key: secretKey, webhook_secret: webhookSecret } = payments.stripe;
  return secretKey === undefined || webhookSecret === undefined ? undefined : { secretKey, webhookSecret };
}

export function checkPaymentsConfig(config: Pick<GatewayConfig, 'payments' | 'console'>): void {
  const { payments } = config;
  const { secret_key: secretKey, webhook_secret: webhookSecret } = payments.stripe;
  if ((secretKey === undefined) !== (webhookSecret === undefined))
    throw new ConfigError(
      'payments.stripe: set both secret_key and webhook_secret (GATEWAY_STRIPE_SECRET_KEY, GATEWAY_STRIPE_WEBHOOK_SECRET), or neither',
    );
  if (payments.min_micros > payments.max_micros)
    throw new ConfigError(
      `payments.min_micros (${payments.min_micros}) must not be above payments.max_micros (${payments.max_micros})`,
    );
  if (ZERO_DECIMAL.has(payments.currency))
    throw new ConfigError(`payments.currency: '${payments.currency}' has no cents; choose a two-decimal currency`);
  if (secretKey !== undefined && config.console.port === undefined)
    throw new ConfigError(
      'payments: the console must run (console.port, GATEWAY_CONSOLE_PORT): members pay there and Stripe calls its /webhooks/stripe',
    );
}
