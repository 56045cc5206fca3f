// A webhook receiver on loopback for the alerts' tests: it keeps every delivery (headers, raw body) and
// answers with the statuses it is told, in order (then 200), so a test scripts failures and awaits the
// n-th delivery instead of polling.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** The statuses of the next answers, in order; 200 once they are used up. */
  answers: number[];
  /** Resolves once `count` deliveries came in. */
  delivered(count: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiting = new Set<{ count: number; resolve: (all: ReceivedDelivery[]) => void }>();
  const receiver: Omit<WebhookReceiver, 'url' | 'close'> = {
    received,
    answers: [],
    delivered(count) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve) => waiting.add({ count, resolve }));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(receiver.answers.shift() ?? 200).end();
      for (const waiter of waiting) {
        if (received.length < waiter.count) continue;
        waiting.delete(waiter);
        waiter.resolve(received);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...receiver,
    url: `http://127.0.0.1:${port}/hooks/gateway`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
