// The payments' settings (config/default.yaml `payments:`, docs/billing.md "Payments"): off by default, the
// variables that set Stripe's keys, and the checks made before the gateway starts
// (console/payments/payments-config.ts checkPaymentsConfig).
import t from 'tap';
import { loadConfig } from '../../../config/load.js';
import { checkPaymentsConfig, stripeKeysOf } from '../../../console/payments/payments-config.js';
import { configFolder } from '../../helpers/config-files.js';

const { file } = configFolder('payments-config-');

const KEYS = { GATEWAY_STRIPE_SECRET_KEY: 'sk_test_1', GATEWAY_STRIPE_WEBHOOK_SECRET: 'whsec_1' };
const withConsole = { ...KEYS, GATEWAY_CONSOLE_PORT: '8082' };

t.test('payments are off by default: 5 to 10,000 credits in usd once on', async (t) => {
  const { config } = loadConfig(undefined, {});
  t.equal(stripeKeysOf(config.payments), undefined);
  t.match(config.payments, { currency: 'usd', min_micros: 5_000_000, max_micros: 10_000_000_000 });
  t.doesNotThrow(() => checkPaymentsConfig(config));
});

t.test("GATEWAY_STRIPE_ variables set Stripe's keys and API address", async (t) => {
  const { config } = loadConfig(undefined, { ...withConsole, GATEWAY_STRIPE_API_URL: 'http://127.0.0.1:12111' });
  t.same(stripeKeysOf(config.payments), { secretKey: 'sk_test_1', webhookSecret: 'whsec_1' });
  t.equal(config.payments.stripe.api_url, 'http://127.0.0.1:12111');
  t.doesNotThrow(() => checkPaymentsConfig(config));
});

t.test('a key that is not a Stripe key is refused where it was set', async (t) => {
  t.throws(
    () => loadConfig(undefined, { GATEWAY_STRIPE_WEBHOOK_SECRET: 'secret' }),
    /GATEWAY_STRIPE_WEBHOOK_SECRET: key 'payments.stripe.webhook_secret' must match/,
  );
});

t.test('one Stripe key without the other is refused', async (t) => {
  const { config } = loadConfig(undefined, { GATEWAY_STRIPE_SECRET_KEY: 'sk_test_1', GATEWAY_CONSOLE_PORT: '1' });
  t.throws(() => checkPaymentsConfig(config), /set both secret_key and webhook_secret/);
});

t.test('payments need the console, where members pay and Stripe calls the webhook', async (t) => {
  const { config } = loadConfig(undefined, KEYS);
  t.throws(() => checkPaymentsConfig(config), /the console must run/);
});

t.test('bounds out of order, or not whole cents, are refused', async (t) => {
  const { config } = loadConfig(undefined, withConsole);
  t.throws(
    () =>
      checkPaymentsConfig({
        ...config,
        payments: { ...config.payments, min_micros: 20_000_000, max_micros: 10_000_000 },
      }),
    /min_micros \(20000000\) must not be above payments.max_micros/,
  );
  t.throws(
    () => loadConfig(file('cents.yaml', 'payments:\n  min_micros: 5000001\n'), withConsole),
    /payments.min_micros' must be multiple of 10000/,
  );
});

t.test('a currency without cents is refused', async (t) => {
  const { config } = loadConfig(undefined, withConsole);
  t.throws(
    () => checkPaymentsConfig({ ...config, payments: { ...config.payments, currency: 'jpy' } }),
    /'jpy' has no cents/,
  );
});
