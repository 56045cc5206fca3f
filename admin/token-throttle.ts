// Failed admin-token attempts, per client address. After `maxFailures` wrong tokens within `windowMs`
// of the first one, every token attempt from that address, right or wrong, is a 429 (retry-after:
// the rest of the window) until the window has passed: a guesser gets 10 tries a minute per address,
// and a right token guessed meanwhile is not even looked at. A right token never counts. The map
// holds at most `maxAddresses` addresses; past that the oldest window is forgotten, so addresses
// cannot exhaust memory.
import type { IncomingMessage } from 'node:http';
import { AdminError } from './errors.js';

export interface TokenThrottleOptions {
  maxFailures?: number;
  windowMs?: number;
  maxAddresses?: number;
  /** The clock (ms); Date.now by default. */
  now?: () => number;
}

interface Failures {
  windowStart: number;
  count: number;
}

export class TokenThrottle {
  readonly #maxFailures: number;
  readonly #windowMs: number;
  readonly #maxAddresses: number;
  readonly #now: () => number;
  /** In the order the windows started (an expired one is deleted before a new one is added). */
  readonly #failures = new Map<string, Failures>();

  constructor(options: TokenThrottleOptions = {}) {
    this.#maxFailures = options.maxFailures ?? 10;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxAddresses = options.maxAddresses ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Throws the 429 while the address has used up its failures in the current window. */
  check(address: string): void {
    const failures = this.#current(address);
    if (failures === undefined || failures.count < this.#maxFailures) return;
    const retryAfterS = Math.ceil((failures.windowStart + this.#windowMs - this.#now()) / 1000);
    throw new AdminError(
      'too_many_requests',
      `too many wrong admin tokens from this address: retry after ${retryAfterS} s`,
      undefined,
      { 'retry-after': String(retryAfterS) },
    );
  }

  failed(address: string): void {
    let failures = this.#current(address);
    if (failures === undefined) {
      if (this.#failures.size >= this.#maxAddresses) this.#failures.delete(this.#failures.keys().next().value!);
      failures = { windowStart: this.#now(), count: 0 };
      this.#failures.set(address, failures);
    }
    failures.count++;
  }

  /** Addresses remembered. */
  get size(): number {
    return this.#failures.size;
  }

  /** The address's failures in a window that has not passed yet; a passed one is forgotten. */
  #current(address: string): Failures | undefined {
    const failures = this.#failures.get(address);
    if (failures !== undefined && this.#now() >= failures.windowStart + this.#windowMs) {
      this.#failures.delete(address);
      return undefined;
    }
    return failures;
  }
}

/** Whether a request presents the admin token, through the throttle of its client address. */
export type TokenCheck = (presented: string, req: IncomingMessage) => boolean;

export function throttledTokenCheck(tokenMatches: (presented: string) => boolean, throttle: TokenThrottle): TokenCheck {
  return (presented, req) => {
    // The socket's peer: behind a reverse proxy every client shares the proxy's address.
    const address = req.socket.remoteAddress ?? 'unknown';
    throttle.check(address);
    if (tokenMatches(presented)) return true;
    throttle.failed(address);
    return false;
  };
}
