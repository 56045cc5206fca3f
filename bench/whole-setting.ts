// The benches' numeric settings, read from the environment.

/** A whole number from `env[name]` (unset or empty: `fallback`), at least `minimum` (1 unless said); else it throws. */
export function wholeSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, minimum = 1): number {
  const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
  if (!Number.isInteger(value) || value < minimum)
    throw new Error(`${name} must be a whole number of at least ${minimum}, not '${env[name]}'`);
  return value;
}
