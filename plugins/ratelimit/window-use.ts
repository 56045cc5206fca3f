// How full an organization's rate-limit window is, as one figure for the clients that show one (Claude
// Code's and Codex's limit signals): the fullest of the three counters against the tier, and when that
// counter's window resets.
import type { Tier } from '../../limits/tiers.js';
import { limitOf } from './headers.js';
import type { CounterKind, Counts } from './window.js';

export interface WindowUse {
  /** The fullest counter's used / limit: 0 for an empty window, 1 or more once a limit is reached. */
  utilization: number;
  /** When the fullest counter's window resets (Unix ms). */
  resetAt: number;
}

const KINDS: readonly CounterKind[] = ['requests', 'input', 'output'];

export function windowUse(tier: Tier, counts: Counts): WindowUse {
  let fullest: WindowUse = { utilization: 0, resetAt: counts.requests.resetAt };
  for (const kind of KINDS) {
    const count = counts[kind];
    const limit = limitOf(tier, kind);
    const utilization = limit > 0 ? count.used / limit : 1;
    if (utilization > fullest.utilization) fullest = { utilization, resetAt: count.resetAt };
  }
  return fullest;
}
