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
  #timer: NodeJS.Timeout | undefined;

  /** `checkEveryMs`: how late a deadline may be noticed. */
  constructor(checkEveryMs: number) {
    this.#checkEveryMs = checkEveryMs;
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
    const now = performance.now();
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
