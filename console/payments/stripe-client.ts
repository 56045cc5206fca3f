// The official Stripe SDK, made once from the config: to https://api.stripe.com, or with
// `payments.stripe.api_url` to another server that speaks its protocol (the tests' fake).
import Stripe from 'stripe';
import type { PaymentsConfig } from '../../config/types.js';

/** How long one API call may take, and how often the SDK retries one that failed on the network (idempotently). */
const TIMEOUT_MS = 20_000;
const NETWORK_RETRIES = 2;

export function stripeClient(secretKey: string, stripe: PaymentsConfig['stripe']): Stripe {
  if (stripe.api_url === undefined)
    return new Stripe(secretKey, { timeout: TIMEOUT_MS, maxNetworkRetries: NETWORK_RETRIES });
  const url = new URL(stripe.api_url);
  return new Stripe(secretKey, {
    host: url.hostname,
    port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    timeout: TIMEOUT_MS,
    maxNetworkRetries: NETWORK_RETRIES,
  });
}
