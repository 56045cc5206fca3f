// The rate-limit tiers (spec §8.1, the table in config `limits.tiers`): an organization's tier follows
// from its lifetime spend.
import type { TierConfig } from '../config/types.js';
import { MICROS_PER_CREDIT } from '../store/credits.js';

export interface Tier {
  name: string;
  /** Lifetime spend from which the tier applies, in micro-credits. */
  fromSpentMicros: number;
  requestsPerMinute: number;
  inputTokensPerMinute: number;
  outputTokensPerMinute: number;
}

/** The config's tiers, lowest threshold first. */
export function tiersOf(config: readonly TierConfig[]): Tier[] {
  return config
    .map((tier) => ({
      name: tier.name,
      fromSpentMicros: Math.round(tier.from_spend * MICROS_PER_CREDIT),
      requestsPerMinute: tier.requests_per_minute,
      inputTokensPerMinute: tier.input_tokens_per_minute,
      outputTokensPerMinute: tier.output_tokens_per_minute,
    }))
    .sort((a, b) => a.fromSpentMicros - b.fromSpentMicros);
}

/** The tier for a lifetime spend: the highest whose threshold it reaches (the lowest tier below all). */
export function tierFor(spentMicros: number, tiers: readonly Tier[]): Tier {
  let tier = tiers[0]!;
  for (const candidate of tiers) if (spentMicros >= candidate.fromSpentMicros) tier = candidate;
  return tier;
}
