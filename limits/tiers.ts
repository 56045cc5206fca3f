// The rate-limit tiers of spec §8.1: an organization's tier follows from its lifetime spend.
import { MICROS_PER_CREDIT } from '../store/credits.js';

export interface Tier {
  name: 'Start' | 'Build' | 'Scale' | 'Enterprise';
  /** Lifetime spend from which the tier applies, in micro-credits. */
  fromSpentMicros: number;
  requestsPerMinute: number;
  inputTokensPerMinute: number;
  outputTokensPerMinute: number;
}

/** Highest threshold last. */
export const TIERS: readonly Tier[] = [
  { name: 'Start', fromSpentMicros: 0, requestsPerMinute: 1_000, inputTokensPerMinute: 2_000_000, outputTokensPerMinute: 400_000 },
  { name: 'Build', fromSpentMicros: 100 * MICROS_PER_CREDIT, requestsPerMinute: 5_000, inputTokensPerMinute: 5_000_000, outputTokensPerMinute: 1_000_000 },
  { name: 'Scale', fromSpentMicros: 1_000 * MICROS_PER_CREDIT, requestsPerMinute: 10_000, inputTokensPerMinute: 10_000_000, outputTokensPerMinute: 2_000_000 },
  { name: 'Enterprise', fromSpentMicros: 5_000 * MICROS_PER_CREDIT, requestsPerMinute: 20_000, inputTokensPerMinute: 10_000_000, outputTokensPerMinute: 2_000_000 },
];

/** The tier for a lifetime spend: the highest whose threshold it reaches. */
export function tierFor(spentMicros: number, tiers: readonly Tier[] = TIERS): Tier {
  let tier = tiers[0]!;
  for (const candidate of tiers) if (spentMicros >= candidate.fromSpentMicros) tier = candidate;
  return tier;
}
