// The prices of the embedded defaults (config/default.yaml), as the gateway reads them: the one price table of
// the tests, so a test's expected cost follows the defaults instead of a copy of them.
import { loadConfig } from '../../config/load.js';
import type { PricingConfig } from '../../config/types.js';
import { Pricer } from '../../plugins/meter/price.js';

/** `pricing` with no config file and no environment: 0.2 / 0.8 credits per million tokens, and so on. */
export const DEFAULT_PRICES: PricingConfig = loadConfig(undefined, {}).config.pricing;

/** A pricer at the default prices: what a test's ledger row must cost. */
export const defaultPricer = (): Pricer => new Pricer(DEFAULT_PRICES);
