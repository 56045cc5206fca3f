// Deadlines of many requests checked by one coarse timer, as Node's HTTP server checks its own header
// timeouts: a setTimeout and clearTimeout per request would cost more than reading a small body.

/** Something to do if it is still pending at `at`, a performance.now() time. */
export interface Deadline {
  readonly at: number;
  expire(): void;
}

export class Deadlines {
  readonly #pending = new Set<Deadline>();
  readonly #checkEveryMs: number;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;

  /** `checkEveryMs`: how late a deadline may be noticed; `now`: the clock deadlines are read on (tests move their own). */
  constructor(checkEveryMs: number, now: () => number = () => performance.now()) {
    this.#checkEveryMs = checkEveryMs;
    this.#now = now;
  }

  add(deadline: Deadline): void {
    this.#pending.add(deadline);
    // The timer runs only while something is pending, and never keeps the process alive.
    this.#timer ??= setInterval(this.#check, this.#checkEveryMs).unref();
  }

  delete(deadline: Deadline): void {
    this.#pending.delete(deadline);
  }

  readonly #check = (): void => {
    const now = this.#now();
    for (const deadline of this.#pending) {
      if (deadline.at > now) continue;
      this.#pending.delete(deadline);
      deadline.expire();
    }
    if (this.#pending.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  };
}

/** How often to check deadlines `timeoutMs` long: a tenth of it (10 ms to 1 s), so none is noticed much late. */
export function checkEveryMs(timeoutMs: number): number {
  return Math.min(1000, Math.max(10, Math.floor(timeoutMs / 10)));
}
