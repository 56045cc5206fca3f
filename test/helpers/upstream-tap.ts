// A pass-through HTTP proxy between the gateway and its upstream that counts the SSE events each answer
// carries, so a test can wait until the gateway has been handed part of a stream (and then, say, let its
// client go) without sleeping. A call the gateway aborts is aborted upstream too, so the server sees it.
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamTap {
  /** The tap's base URL (no /v1): the gateway's upstream. */
  url: string;
  /** Settles once one answer has carried `count` SSE events to the gateway (written to its socket). */
  events(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startUpstreamTap(target: string): Promise<UpstreamTap> {
  const upstream = new URL(target);
  const waiters = new Set<{ count: number; resolve: () => void }>();
  const passed = (events: number): void => {
    for (const waiter of waiters) {
      if (events < waiter.count) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  };
  const server = createServer((req, res) => {
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer: IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let events = 0;
        answer.on('data', (chunk: Buffer) => {
          res.write(chunk);
          events += chunk.toString('utf8').split('\n\n').length - 1;
          passed(events);
        });
        answer.on('end', () => res.end());
        answer.on('error', () => res.destroy());
      },
    );
    forward.on('error', () => res.destroy());
    // The gateway hung up before the answer's end: so does the tap, and the server sees its client leave.
    res.on('close', () => {
      if (!res.writableFinished) forward.destroy();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events: (count) => new Promise((resolve) => waiters.add({ count, resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
