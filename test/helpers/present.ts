// Narrowing an SDK's nullable field in a test: the value, or a thrown error that fails the test and names it.

/** The value when it is neither null nor undefined; otherwise throws, naming what is missing. */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} is ${value}`);
  return value;
}
