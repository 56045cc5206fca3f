// The counters the rate limiter keeps per organization and window, behind one interface with two
// backends: in-process (memory-window.ts) and Redis (redis-window.ts, one Lua script per operation).
// The operations are the limiter's three phases, so that each is one atomic step and, with Redis, one
// round trip: the start of a call, its input estimate, and its settlement.

/** Where a backend that could not count as usual says so (the request's log): Redis did not answer. */
export interface WindowLog {
  warn(fields: { err: string }, message: string): void;
}

/** The three things counted per organization and window (spec §8.1). */
export type CounterKind = 'requests' | 'input' | 'output';

/** A counter's state in its current window. */
export interface Count {
  /** What the window has used so far (after the operation that returned it). */
  used: number;
  /** When the window ends (Unix ms): the counter starts again from zero then. */
  resetAt: number;
}

export type Counts = Record<CounterKind, Count>;

/** The input estimate's charge: whether it fitted, and the input counter after the operation. */
export interface InputCharge {
  admitted: boolean;
  /** With the estimate when admitted; as it was before when not (the estimate was given back). */
  input: Count;
}

/** What a settlement changed: only the counters it touched. */
export interface Settled {
  input?: Count;
  output?: Count;
}

/**
 * Fixed windows, one per organization and counter, that start with the counter's first use and last
 * `windowMs`. Every operation is one atomic step where the counters are shared (never read here and
 * written there), so N gateway nodes together admit exactly what one would. Amounts are whole numbers
 * within ±MAX_STEP (see `boundedAmount`); `used` is never reported below zero.
 */
export interface RateWindow {
  readonly windowMs: number;
  /** The start of a call: adds `requests` (1, or 0 to only read) and reads the input and output counters. */
  open(orgId: string, requests: number, log?: WindowLog): Promise<Counts>;
  /** Adds the input estimate; if that takes the counter past `limit`, takes it back in the same step. */
  chargeInput(orgId: string, estimate: number, limit: number, log?: WindowLog): Promise<InputCharge>;
  /**
   * The end of a call: adds `input` to the input counter (the reconciliation; negative gives back) and
   * `output` to the output counter, each only when given.
   */
  settle(orgId: string, input: number | undefined, output: number | undefined, log?: WindowLog): Promise<Settled>;
}

/**
 * The most one operation adds or takes back: far above any tier's limit, and far below what a counter
 * can hold (2^53 in JavaScript and Lua, 2^63 in Redis): two million such steps in one window still fit.
 */
export const MAX_STEP = 2 ** 32;

/** An amount as a whole number within ±MAX_STEP (NaN counts nothing): no figure can push a counter where it breaks. */
export function boundedAmount(amount: number): number {
  if (Number.isNaN(amount)) return 0;
  return Math.max(-MAX_STEP, Math.min(MAX_STEP, Math.round(amount)));
}
