/** The items starting from index `by` (mod length) and wrapping around: a different order per repeat. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
