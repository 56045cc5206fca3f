// Money in code: whole micro-credits held as JavaScript numbers, which are exact only up to 2^53 − 1.
// Every amount is checked against that range where it is made (prices × tokens, credits added) and again
// before it is written, so a float or an out-of-range value can never reach a balance. The database
// refuses one too (migration 0003).

/** The largest amount of micro-credits (about 9 billion credits) the gateway handles. */
export const MAX_MICROS = Number.MAX_SAFE_INTEGER;

/** Whether `value` is a whole number of micro-credits within ±MAX_MICROS. */
export function isMicros(value: number): boolean {
  return Number.isSafeInteger(value);
}

/** Returns `value`, or throws a RangeError that names `what` if it is not a whole, safe number of micro-credits. */
export function checkedMicros(value: number, what: string): number {
  if (!isMicros(value))
    throw new RangeError(`${what} must be a whole number of micro-credits within ±${MAX_MICROS}, not ${value}`);
  return value;
}
