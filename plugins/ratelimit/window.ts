// The counters the rate limiter keeps per organization and window, behind one interface with two
// backends: in-process (memory-window.ts) and Redis (redis-window.ts), both rate-limiter-flexible.

/** The three things counted per organization and window (spec §8.1). */
export type CounterKind = 'requests' | 'input' | 'output';

export const COUNTER_KINDS: readonly CounterKind[] = ['requests', 'input', 'output'];

/** A counter's state in its current window. */
export interface Count {
  /** What the window has used so far (after the operation that returned it). */
  used: number;
  /** When the window ends (Unix ms): the counter starts again from zero then. */
  resetAt: number;
}

/**
 * Fixed windows, one per organization and counter, that start with the counter's first use and last
 * `windowMs`. Every operation is one atomic step where the counters are shared (never read here and
 * written there), so N gateway nodes together admit exactly what one would.
 */
export interface RateWindow {
  readonly windowMs: number;
  /** Adds `amount` and returns the new state: the caller compares `used` with the limit. */
  consume(kind: CounterKind, orgId: string, amount: number): Promise<Count>;
  /** Adds (penalty) or takes back (reward, negative) `amount` without any check: reconciliation. */
  adjust(kind: CounterKind, orgId: string, amount: number): Promise<Count>;
  /** Reads the state without changing it (a fresh window when the counter is unused). */
  read(kind: CounterKind, orgId: string): Promise<Count>;
}
