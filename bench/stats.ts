// Order statistics over samples.

/** The q-quantile (0..1) of the samples, nearest rank. NaN when there are none. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(samples: readonly number[]): number {
  return quantile(
    samples.filter((value) => Number.isFinite(value)),
    0.5,
  );
}
