// The requests a node has under way, so that a node that stops knows when they are over (proxy/node/drain.ts).
import type { ServerResponse } from 'node:http';

/**
 * Counts the requests under way (an HTTP request until its handler is done, which is after its ledger
 * row is settled; a WebSocket response likewise) and says whether the node is draining. While it
 * drains, every HTTP response not yet begun says `connection: close`, so its connection closes after it.
 * A connection whose response had already said keep-alive is not ended under the proxy that may reuse
 * it: it carries one more request (answered so) or is closed at the drain's end (proxy/node/drain.ts).
 */
export class InFlight {
  #count = 0;
  #draining = false;
  /** HTTP responses not yet closed: a drain tells those not yet begun to close their connection. */
  readonly #responses = new Set<ServerResponse>();
  #waiters: Array<() => void> = [];

  get count(): number {
    return this.#count;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** An HTTP request begins: counted until the returned function is called. */
  http(res: ServerResponse): () => void {
    if (this.#draining) res.setHeader('connection', 'close');
    this.#responses.add(res);
    res.once('close', () => this.#responses.delete(res));
    return this.enter();
  }

  /** A request begins: counted until the returned function is called (once; later calls do nothing). */
  enter(): () => void {
    this.#count++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
    };
  }

  /** The node stops taking work: from now on every HTTP connection closes after its response. */
  drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    for (const res of this.#responses) if (!res.headersSent) res.setHeader('connection', 'close');
  }

  /** Resolves when no request is under way. */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
