// The reset headers' ISO 8601 strings (`2025-06-01T12:00:41.120Z`, what Date#toISOString writes), made
// without formatting a date per header: the part up to the second is cached per second (a window's
// resets all fall in a few seconds), the milliseconds come from a table, and the last string is kept,
// since the three counters of a request mostly share one reset time.

/** `000Z` … `999Z`. */
const MILLIS_Z: readonly string[] = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);

/** Seconds kept at most; beyond, the cache starts over. */
const MAX_SECONDS = 1024;

export class ResetTimes {
  readonly #prefixes = new Map<number, string>();
  #lastMs = Number.NaN;
  #last = '';

  /** The instant (Unix ms) as `new Date(ms).toISOString()` writes it. */
  iso(ms: number): string {
    if (ms === this.#lastMs) return this.#last;
    // A Date keeps whole milliseconds, dropping the fraction (toward zero), as toISOString then shows.
    const whole = Math.trunc(ms);
    const second = Math.floor(whole / 1000);
    let prefix = this.#prefixes.get(second);
    if (prefix === undefined) {
      // Everything but `sssZ`, also for years written with six digits and a sign.
      prefix = new Date(second * 1000).toISOString().slice(0, -4);
      if (this.#prefixes.size >= MAX_SECONDS) this.#prefixes.clear();
      this.#prefixes.set(second, prefix);
    }
    this.#lastMs = ms;
    this.#last = prefix + MILLIS_Z[whole - second * 1000]!;
    return this.#last;
  }
}
