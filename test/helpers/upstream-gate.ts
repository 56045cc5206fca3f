// A pass-through HTTP proxy between the gateway and its upstream that holds every generation (a POST; the
// gateway's own GETs of the upstream's health and model pass) while it is shut: a test knows when calls are
// under way upstream (`held`, `arrived`) and keeps them there (a batch acted on while a line runs, a node
// killed with calls in flight), without sleeping. Opened, it passes what it held, and everything after.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamGate {
  /** The gate's base URL (no /v1): the gateway's upstream. */
  url: string;
  /** Holds the generations from now on. */
  shut(): void;
  /** Passes the held generations and every later one. */
  open(): void;
  /** Settles once `count` generations are held at the same time. */
  held(count: number): Promise<void>;
  /** Settles once `count` generations have arrived in all, held or passed. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts shut unless told `{ shut: false }`. */
export async function startUpstreamGate(target: string, options: { shut?: boolean } = {}): Promise<UpstreamGate> {
  const upstream = new URL(target);
  const holding: Array<() => void> = [];
  const waiters = new Set<{ count: number; of: () => number; resolve: () => void }>();
  let arrivals = 0;
  let shut = options.shut ?? true;
  const wake = (): void => {
    for (const waiter of waiters)
      if (waiter.of() >= waiter.count) {
        waiters.delete(waiter);
        waiter.resolve();
      }
  };
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    if (res.destroyed) return;
    const call = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    call.on('error', () => res.destroy());
    res.on('close', () => call.destroy());
    call.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const pass = (): void => forward(req, res, Buffer.concat(chunks));
      if (req.method !== 'POST') return pass();
      arrivals += 1;
      if (shut) holding.push(pass);
      else pass();
      wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const waitFor = (count: number, of: () => number): Promise<void> => {
    if (of() >= count) return Promise.resolve();
    return new Promise((resolve) => waiters.add({ count, of, resolve }));
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    shut() {
      shut = true;
    },
    open() {
      shut = false;
      for (const pass of holding.splice(0)) pass();
    },
    held: (count) => waitFor(count, () => holding.length),
    arrived: (count) => waitFor(count, () => arrivals),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
