// A cap on a node's concurrent client connections.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Counts a server's open connections. A connection opened while `max` are open is over the cap: its
 * first request is answered 503 (with retry-after) in the route's dialect, and the connection closed.
 * It is answered rather than dropped so that the client learns why, after sending its request (a
 * socket closed under a request being sent is a reset, not an answer). Past twice the cap, new
 * connections are closed at once, without an answer (Node's `maxConnections`).
 */
export class ConnectionCap {
  readonly #max: number;
  #open = 0;
  #overCount = 0;
  readonly #over = new WeakSet<Socket>();

  constructor(max: number) {
    this.#max = max;
  }

  attach(server: Server): void {
    server.maxConnections = 2 * this.#max;
    server.on('connection', this.#onConnection);
  }

  /** Whether the request's connection is over the cap (and must be refused). */
  refuses(socket: Socket): boolean {
    return this.#overCount > 0 && this.#over.has(socket);
  }

  readonly #onConnection = (socket: Socket): void => {
    this.#open++;
    if (this.#open > this.#max) {
      this.#overCount++;
      this.#over.add(socket);
      socket.once('close', this.#onOverClose);
    } else {
      socket.once('close', this.#onClose);
    }
  };

  readonly #onClose = (): void => {
    this.#open--;
  };

  readonly #onOverClose = (): void => {
    this.#open--;
    this.#overCount--;
  };
}
