// The meter's cost arithmetic (spec section 8.4): integer micro-credits, exact decimals, cache
// multipliers, searches, and one rounding up per request.
import t from 'tap';
import { decimal, NO_USAGE, Pricer, type BilledUsage } from '../../../../plugins/meter/price.js';
import { billedFromEstimate, billedFromUsage } from '../../../../plugins/meter/usage.js';
import { DEFAULT_PRICES } from '../../../kit/prices.js';

const defaults = DEFAULT_PRICES;
const pricer = new Pricer(defaults);
const cost = (usage: Partial<BilledUsage>): number => pricer.cost({ ...NO_USAGE, ...usage });

t.test('a million input tokens cost input_per_mtok credits, a million output tokens output_per_mtok', async (t) => {
  t.equal(cost({ input: 1_000_000 }), 200_000);
  t.equal(cost({ output: 1_000_000 }), 800_000);
  t.equal(cost({}), 0);
});

t.test(
  'prices are exact decimals: 15 input tokens at 0.2 are 3 micro-credits, not 4 (0.2 × 15 in floating point is 3.0000000000000004)',
  async (t) => {
    t.equal(cost({ input: 15 }), 3);
    t.equal(cost({ input: 5, output: 5 }), 5);
    t.equal(cost({ input: 3 }), 1, '0.6 rounds up to 1');
  },
);

t.test('cache writes cost 1.25× (5 minutes) or 2× (1 hour) the input price, cache reads 0.1×', async (t) => {
  t.equal(cost({ cacheWrite5m: 1_000_000 }), 250_000);
  t.equal(cost({ cacheWrite1h: 1_000_000 }), 400_000);
  t.equal(cost({ cacheRead: 1_000_000 }), 20_000);
  t.equal(cost({ input: 250, cacheRead: 600, cacheWrite5m: 100, cacheWrite1h: 50, output: 10 }), 50 + 12 + 25 + 20 + 8);
});

t.test('executed searches cost search_per_1000 credits per 1,000 on top of the tokens', async (t) => {
  t.equal(cost({ searches: 1 }), 10_000, '$0.01 a search');
  t.equal(cost({ searches: 1000 }), 10_000_000);
  t.equal(cost({ input: 5, searches: 3 }), 30_001);
});

t.test('a request is rounded up once, at the end, not per kind', async (t) => {
  // 0.2 + 0.02 + 0.8 = 1.02 micro-credits: 2, where rounding each kind up would give 3.
  t.equal(cost({ input: 1, cacheRead: 1, output: 1 }), 2);
  t.equal(cost({ cacheRead: 1 }), 1, 'any fraction of a micro-credit is one');
});

t.test('other prices: whole numbers, many decimals and exponents are read exactly', async (t) => {
  const vendor = new Pricer({
    input_per_mtok: 3,
    output_per_mtok: 15,
    cache_write_5m_multiplier: 1.25,
    cache_write_1h_multiplier: 2,
    cache_read_multiplier: 0.1,
    search_per_1000: 10,
  });
  t.equal(
    vendor.cost({ ...NO_USAGE, input: 1000, output: 1000, cacheRead: 1000, cacheWrite5m: 1000, cacheWrite1h: 1000 }),
    3000 + 15000 + 300 + 3750 + 6000,
  );
  t.same(decimal(0.2), { digits: 2n, scale: 1 });
  t.same(decimal(1e-7), { digits: 1n, scale: 7 });
  t.same(decimal(1.5e-7), { digits: 15n, scale: 8 });
  t.same(decimal(2e21), { digits: 2_000_000_000_000_000_000_000n, scale: 0 });
  const tiny = new Pricer({ ...defaults, input_per_mtok: 1e-7 });
  t.equal(tiny.cost({ ...NO_USAGE, input: 10_000_000 }), 1);
  t.equal(tiny.cost({ ...NO_USAGE, input: 10_000_001 }), 2);
  t.throws(() => decimal(-1));
  t.throws(() => decimal(Number.NaN));
});

t.test(
  'OpenAI-style usage: prompt_tokens includes cached and cache-written tokens, which are not billed twice',
  async (t) => {
    const billed = billedFromUsage(
      {
        prompt_tokens: 1000,
        completion_tokens: 10,
        total_tokens: 1010,
        prompt_tokens_details: {
          cached_tokens: 600,
          cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 50 },
        },
      },
      2,
    );
    t.same(billed, { input: 250, output: 10, cacheRead: 600, cacheWrite5m: 100, cacheWrite1h: 50, searches: 2 });
    t.equal(pricer.cost(billed), 50 + 12 + 25 + 20 + 8 + 20_000);
    t.same(billedFromUsage({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }, 0), {
      ...NO_USAGE,
      input: 7,
      output: 3,
    });
    t.same(
      billedFromUsage({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, prompt_tokens_details: null }, 0),
      { ...NO_USAGE, input: 7, output: 3 },
    );
  },
);

t.test('usage with missing or malformed counts bills them as zero, never throws', async (t) => {
  const billed = billedFromUsage(
    {
      prompt_tokens: 5.5,
      completion_tokens: -3,
      total_tokens: 0,
      prompt_tokens_details: { cached_tokens: '10' },
    } as never,
    0,
  );
  t.same(billed, NO_USAGE);
});

t.test('without usage, the bill is the input estimate and the output estimate, with the searches', async (t) => {
  t.same(billedFromEstimate(120, 11, 1), { ...NO_USAGE, input: 120, output: 11, searches: 1 });
});

// The batch price (issue #29): the list price less a whole-percentage discount, exact, rounded up once.
const listed = {
  input_per_mtok: 0.3,
  output_per_mtok: 1.7,
  cache_write_5m_multiplier: 1.25,
  cache_write_1h_multiplier: 2,
  cache_read_multiplier: 0.1,
  search_per_1000: 10,
};
/** The prices of `listed` in millionths of a micro-credit, per token (per search), written out by hand. */
const LISTED_MILLIONTHS = {
  input: 300_000n,
  output: 1_700_000n,
  cacheRead: 30_000n,
  cacheWrite5m: 375_000n,
  cacheWrite1h: 600_000n,
  searches: 10_000_000_000n,
};
/** The reference: the exact list cost in BigInt, times (100 − discount)%, rounded up once. */
const referenceCost = (usage: BilledUsage, discountPercent: number): number => {
  let exact = 0n;
  for (const kind of Object.keys(LISTED_MILLIONTHS) as (keyof BilledUsage)[])
    exact += BigInt(usage[kind]) * LISTED_MILLIONTHS[kind];
  const denominator = 100n * 1_000_000n;
  return Number((exact * BigInt(100 - discountPercent) + denominator - 1n) / denominator);
};
const usages: BilledUsage[] = [
  { ...NO_USAGE, input: 1 },
  { ...NO_USAGE, input: 7, output: 3 },
  { ...NO_USAGE, input: 333, output: 77, cacheRead: 1001, cacheWrite5m: 13, cacheWrite1h: 9, searches: 3 },
  { ...NO_USAGE, input: 999_999, output: 123_457, cacheRead: 1 },
  { ...NO_USAGE, cacheRead: 17 },
];

t.test('a 50% discount costs half the exact list price, rounded up once (not the list cost halved)', async (t) => {
  const batch = new Pricer(listed, 50);
  for (const usage of usages) t.equal(batch.cost(usage), referenceCost(usage, 50), JSON.stringify(usage));
  // 7 × 0.3 + 3 × 1.7 = 7.2 micro-credits: 8 at the list price, 3.6 → 4 at half, not 8 / 2.
  t.equal(new Pricer(listed).cost({ ...NO_USAGE, input: 7, output: 3 }), 8);
  t.equal(batch.cost({ ...NO_USAGE, input: 7, output: 3 }), 4);
  // 1 token at 0.15: any fraction of a micro-credit is one.
  t.equal(batch.cost({ ...NO_USAGE, input: 1 }), 1);
});

t.test('a 0% discount is the list price', async (t) => {
  const none = new Pricer(listed, 0);
  for (const usage of usages) {
    t.equal(none.cost(usage), new Pricer(listed).cost(usage));
    t.equal(none.cost(usage), referenceCost(usage, 0));
  }
});

t.test('a 100% discount costs nothing', async (t) => {
  const all = new Pricer(listed, 100);
  for (const usage of usages) t.equal(all.cost(usage), 0);
});

t.test('a discount that is not a whole percentage from 0 to 100 throws a RangeError', async (t) => {
  for (const discount of [-1, 101, 12.5, Number.NaN, Number.POSITIVE_INFINITY])
    t.throws(() => new Pricer(listed, discount), RangeError, String(discount));
});

t.test(
  "a service tier's price_percent scales the exact list price, rounded up once (so flex at 50% never undercharges)",
  async (t) => {
    // A share of p% is a discount of (100 − p)% for p ≤ 100; above 100 the reference is scaled the same way.
    const reference = (usage: BilledUsage, percent: number): number => {
      let exact = 0n;
      for (const kind of Object.keys(LISTED_MILLIONTHS) as (keyof BilledUsage)[])
        exact += BigInt(usage[kind]) * LISTED_MILLIONTHS[kind];
      const denominator = 100n * 1_000_000n;
      return Number((exact * BigInt(percent) + denominator - 1n) / denominator);
    };
    for (const percent of [0, 33, 50, 100, 150, 200, 1000]) {
      const tier = new Pricer(listed, 0, percent);
      for (const usage of usages) t.equal(tier.cost(usage), reference(usage, percent), `${percent}%`);
    }
    // 7 × 0.3 + 3 × 1.7 = 7.2 micro-credits: 8 at the list price, 3.6 → 4 at flex's 50%, 14.4 → 15 at 200%.
    t.equal(new Pricer(listed, 0, 50).cost({ ...NO_USAGE, input: 7, output: 3 }), 4);
    t.equal(new Pricer(listed, 0, 200).cost({ ...NO_USAGE, input: 7, output: 3 }), 15);
    // A batch line's discount and a tier's share compose exactly: 7.2 × 50% × 200% = 7.2 → 8.
    t.equal(new Pricer(listed, 50, 200).cost({ ...NO_USAGE, input: 7, output: 3 }), 8);
    for (const percent of [-1, 1001, 12.5, Number.NaN])
      t.throws(() => new Pricer(listed, 0, percent), RangeError, String(percent));
  },
);
