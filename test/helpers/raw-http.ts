// HTTP/1.1 by hand over TCP, for requests no client library sends: partial, slow, malformed, oversized headers.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Its bytes on the wire, head and body. */
  length: number;
}

export class RawConnection {
  readonly socket: Socket;
  /** Resolves when the server closes the connection (or it breaks). */
  readonly closed: Promise<void>;
  #received = Buffer.alloc(0);
  #waiters: Array<() => void> = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#received = Buffer.concat([this.#received, chunk]);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    // A reset after the answer is no failure of the test: what was received is what counts.
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        for (const wake of this.#waiters.splice(0)) wake();
        resolve();
      }),
    );
  }

  static async open(baseUrl: string): Promise<RawConnection> {
    const url = new URL(baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, 'connect');
    return new RawConnection(socket);
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The first complete response received (by content-length), waiting for it; rejects if the connection closes first. */
  async response(): Promise<RawResponse> {
    for (;;) {
      const parsed = parseResponse(this.#received);
      if (parsed !== undefined) return parsed;
      if (this.socket.destroyed)
        throw new Error(
          `connection closed before a complete response; received: ${JSON.stringify(this.#received.toString('latin1'))}`,
        );
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Like `response()`, and forgets its bytes: the next call reads the next response on the connection. */
  async takeResponse(): Promise<RawResponse> {
    const answer = await this.response();
    this.#received = this.#received.subarray(answer.length);
    return answer;
  }

  /** Waits until the bytes received contain `text`; rejects if the connection closes first. */
  async waitFor(text: string): Promise<void> {
    while (!this.#received.includes(text)) {
      if (this.socket.destroyed) throw new Error(`connection closed before ${JSON.stringify(text)} arrived`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

function parseResponse(bytes: Buffer): RawResponse | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const [statusLine, ...lines] = bytes.toString('latin1', 0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length < headEnd + 4 + length) return undefined;
  return {
    status: Number(statusLine!.split(' ')[1]),
    headers,
    body: bytes.toString('utf8', headEnd + 4, headEnd + 4 + length),
    length: headEnd + 4 + length,
  };
}
