// The cost arithmetic. Prices come from the config as decimals (credits per million tokens, multiples
// of the input price, credits per 1,000 searches); they are read as exact decimal fractions once, at
// start, and a request's cost is a sum of integer products computed in BigInt, rounded up once, at
// the end, to whole micro-credits. A credit per million tokens is a micro-credit per token.
import type { PricingConfig } from '../../config/types.js';
import { checkedMicros } from '../../store/money.js';

/** What a request is billed for, by kind. `input` is the prompt tokens neither read from nor written to a cache. */
export interface BilledUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  searches: number;
}

export const NO_USAGE: Readonly<BilledUsage> = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  searches: 0,
};

/** An exact decimal: `digits × 10^-scale`. */
interface Decimal {
  digits: bigint;
  scale: number;
}

export class Pricer {
  /** Price per unit of each kind in micro-credits, as integers over `#denominator`. */
  readonly #input: bigint;
  readonly #output: bigint;
  readonly #cacheRead: bigint;
  readonly #cacheWrite5m: bigint;
  readonly #cacheWrite1h: bigint;
  readonly #search: bigint;
  readonly #denominator: bigint;

  /**
   * `discountPercent`: off every price, a whole percentage (the batch price: issue #29); `pricePercent`: the
   * share of every price paid, a whole percentage (a service tier's `price_percent`: issue #31). Both exact
   * like the rest: a cost is still rounded up once, at the end.
   */
  constructor(pricing: PricingConfig, discountPercent = 0, pricePercent = 100) {
    if (!Number.isInteger(discountPercent) || discountPercent < 0 || discountPercent > 100)
      throw new RangeError(`a discount is a whole percentage 0..100, not ${discountPercent}`);
    if (!Number.isInteger(pricePercent) || pricePercent < 0 || pricePercent > 1000)
      throw new RangeError(`a price percentage is a whole percentage 0..1000, not ${pricePercent}`);
    const input = decimal(pricing.input_per_mtok);
    // credits per 1,000 searches × 1,000,000 micro-credits / 1,000 = micro-credits per search × 1,000.
    const search = times(decimal(pricing.search_per_1000), { digits: 1000n, scale: 0 });
    // (100 − discount) / 100 × percent / 100: the share of the list price paid.
    const paid: Decimal = { digits: BigInt(100 - discountPercent) * BigInt(pricePercent), scale: 4 };
    const prices = [
      input,
      decimal(pricing.output_per_mtok),
      times(input, decimal(pricing.cache_read_multiplier)),
      times(input, decimal(pricing.cache_write_5m_multiplier)),
      times(input, decimal(pricing.cache_write_1h_multiplier)),
      search,
    ].map((price) => times(price, paid));
    const scale = Math.max(...prices.map((price) => price.scale));
    const [i, o, r, w5, w1, s] = prices.map((price) => price.digits * 10n ** BigInt(scale - price.scale)) as [
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
      bigint,
    ];
    this.#input = i;
    this.#output = o;
    this.#cacheRead = r;
    this.#cacheWrite5m = w5;
    this.#cacheWrite1h = w1;
    this.#search = s;
    this.#denominator = 10n ** BigInt(scale);
  }

  /**
   * The cost in whole micro-credits, rounded up (a fraction of a micro-credit is one micro-credit).
   * Token counts are bounded where they enter (the model's context, max_uses) and prices by the config
   * schema, so a cost fits a safe integer by far; one that does not is a bug, and throws.
   */
  cost(usage: BilledUsage): number {
    const exact =
      BigInt(usage.input) * this.#input +
      BigInt(usage.output) * this.#output +
      BigInt(usage.cacheRead) * this.#cacheRead +
      BigInt(usage.cacheWrite5m) * this.#cacheWrite5m +
      BigInt(usage.cacheWrite1h) * this.#cacheWrite1h +
      BigInt(usage.searches) * this.#search;
    return checkedMicros(Number((exact + this.#denominator - 1n) / this.#denominator), 'a cost');
  }
}

/**
 * A config number as the decimal it was written as: JavaScript prints a number as the shortest
 * decimal that reads back to it, so `0.2` is exactly 2/10 here, not the binary double near it.
 */
export function decimal(value: number): Decimal {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`a price must be a finite number ≥ 0, not ${value}`);
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (match === null) throw new RangeError(`cannot read ${value} as a decimal`);
  const fraction = match[2] ?? '';
  const scale = fraction.length - Number(match[3] ?? 0);
  const digits = BigInt(match[1]! + fraction);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

function times(a: Decimal, b: Decimal): Decimal {
  return { digits: a.digits * b.digits, scale: a.scale + b.scale };
}
