// A clock that moves only when the test moves it: what a test gives the code under test instead of
// Date.now, so an expiry is a step of the test, not a sleep.
export class TestClock {
  #ms: number;

  /** Starts at the real time (stores and Redis still see sensible timestamps), then stands still. */
  constructor(startMs = Date.now()) {
    this.#ms = startMs;
  }

  /** The time (Unix ms), for a `now` option. */
  readonly now = (): number => this.#ms;

  advance(ms: number): void {
    this.#ms += ms;
  }
}
