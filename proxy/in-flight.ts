// The requests a node has under way, so that a node that stops knows when they are over (proxy/drain.ts).
import type { ServerResponse } from 'node:http';

/**
 * Counts the requests under way (an HTTP request until its handler is done, which is after its ledger
 * row is settled; a WebSocket response likewise) and says whether the node is draining. While it
 * drains, every HTTP connection closes after its response: a response not yet begun says
 * `connection: close`, one whose head already said keep-alive has its connection ended once it is out.
 */
export class InFlight {
  #count = 0;
  #draining = false;
  /** HTTP responses not yet closed: their connections are the ones a drain must end after them. */
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
    for (const res of this.#responses) closeAfter(res);
  }

  /** Resolves when no request is under way. */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) {
    res.setHeader('connection', 'close');
    return;
  }
  // Its head said keep-alive: the connection is ended (a FIN after the last byte) once the response is out.
  const socket = res.socket;
  if (socket === null) return;
  if (res.writableFinished) socket.end();
  else res.once('finish', () => socket.end());
}
