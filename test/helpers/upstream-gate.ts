// A pass-through HTTP proxy between the gateway and its upstream that holds every generation (a POST; the
// gateway's own GETs of the upstream's health and model pass) while it is shut: a test knows when calls are
// under way upstream (`arrived`) and keeps them there (a node killed then has them in flight), without
// sleeping. Once open, it passes everything, what it held first.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamGate {
  /** The gate's base URL (no /v1): the gateway's upstream. */
  url: string;
  /** Settles once `count` generations have arrived in all. */
  arrived(count: number): Promise<void>;
  /** Passes the held requests and every later one. */
  open(): void;
  close(): Promise<void>;
}

export async function startUpstreamGate(target: string): Promise<UpstreamGate> {
  const upstream = new URL(target);
  const held: Array<() => void> = [];
  const waiters = new Set<{ count: number; resolve: () => void }>();
  let arrivals = 0;
  let opened = false;
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
      if (req.method !== 'POST') {
        forward(req, res, Buffer.concat(chunks));
        return;
      }
      arrivals += 1;
      for (const waiter of waiters)
        if (arrivals >= waiter.count) {
          waiters.delete(waiter);
          waiter.resolve();
        }
      const pass = (): void => forward(req, res, Buffer.concat(chunks));
      if (opened) pass();
      else held.push(pass);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived(count) {
      if (arrivals >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.add({ count, resolve }));
    },
    open() {
      opened = true;
      for (const pass of held.splice(0)) pass();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
