// Rate-limit tiers (spec §8.1): an organization's tier follows from its lifetime spend.
import t from 'tap';
import { loadConfig } from '../../../config/load.js';
import { tierFor, tiersOf } from '../../../limits/tiers.js';

const tiers = tiersOf(loadConfig(undefined, {}).config.limits.tiers);
const credits = (amount: number): number => amount * 1_000_000;

t.test(
  'the default tiers are the spec table: Start, Build, Scale, Enterprise with their per-minute limits',
  async (t) => {
    t.same(
      tiers.map((tier) => [
        tier.name,
        tier.fromSpentMicros,
        tier.requestsPerMinute,
        tier.inputTokensPerMinute,
        tier.outputTokensPerMinute,
      ]),
      [
        ['Start', 0, 1_000, 2_000_000, 400_000],
        ['Build', credits(100), 5_000, 5_000_000, 1_000_000],
        ['Scale', credits(1_000), 10_000, 10_000_000, 2_000_000],
        ['Enterprise', credits(5_000), 20_000, 10_000_000, 2_000_000],
      ],
    );
  },
);

t.test(
  'each tier applies from its lifetime spend: $0 Start, $100 and above Build, $1,000 Scale, $5,000 Enterprise',
  async (t) => {
    const cases: Array<[number, string]> = [
      [0, 'Start'],
      [credits(99.999999), 'Start'],
      [credits(100), 'Build'],
      [credits(999), 'Build'],
      [credits(1_000), 'Scale'],
      [credits(4_999.99), 'Scale'],
      [credits(5_000), 'Enterprise'],
      [credits(1_000_000), 'Enterprise'],
    ];
    for (const [spent, name] of cases)
      t.equal(tierFor(Math.round(spent), tiers).name, name, `${spent / 1e6} credits spent`);
  },
);

t.test(
  'tiers given in any order are sorted by threshold, and a spend below every threshold gets the lowest',
  async (t) => {
    const shuffled = tiersOf([
      { name: 'B', from_spend: 10, requests_per_minute: 2, input_tokens_per_minute: 2, output_tokens_per_minute: 2 },
      { name: 'A', from_spend: 5, requests_per_minute: 1, input_tokens_per_minute: 1, output_tokens_per_minute: 1 },
    ]);
    t.same(
      shuffled.map((tier) => tier.name),
      ['A', 'B'],
    );
    t.equal(tierFor(0, shuffled).name, 'A');
    t.equal(tierFor(credits(10), shuffled).name, 'B');
  },
);
