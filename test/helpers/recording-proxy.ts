// A pass-through HTTP proxy on loopback that records what a client (a CLI under test) and the gateway
// said to each other: each request's method, path and body, and the answer's status and text. The
// answer is passed on chunk by chunk as it arrives, so streams stay streams.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedExchange {
  method: string;
  /** The path with its query, as the client sent it. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body, parsed when it is JSON (else the text; undefined when empty). */
  body: unknown;
  status: number;
  /** The answer as text (a body, or the whole event stream). */
  response: string;
}

export interface RecordingProxy {
  /** The proxy's base URL, e.g. http://127.0.0.1:41234 (give it to the client instead of the gateway's). */
  url: string;
  /** The exchanges completed so far, oldest first. */
  exchanges(): RecordedExchange[];
  /** The first exchange that `matches`, already completed or the next to be: a test awaits it instead of polling. */
  recorded(matches: (exchange: RecordedExchange) => boolean): Promise<RecordedExchange>;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const recorded: RecordedExchange[] = [];
  const awaited = new Set<{
    matches: (exchange: RecordedExchange) => boolean;
    resolve: (exchange: RecordedExchange) => void;
  }>();
  const record = (exchange: RecordedExchange): void => {
    recorded.push(exchange);
    for (const waiter of awaited) {
      if (!waiter.matches(exchange)) continue;
      awaited.delete(waiter);
      waiter.resolve(exchange);
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const sent = Buffer.concat(chunks);
      const forward = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const received: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => {
            received.push(chunk);
            res.write(chunk);
          });
          answer.on('end', () => {
            record({
              method: req.method ?? 'GET',
              path: req.url ?? '/',
              headers: req.headers,
              body: parsed(sent.toString('utf8')),
              status: answer.statusCode ?? 502,
              response: Buffer.concat(received).toString('utf8'),
            });
            res.end();
          });
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges: () => [...recorded],
    recorded: (matches) => {
      const done = recorded.find(matches);
      if (done !== undefined) return Promise.resolve(done);
      return new Promise((resolve) => awaited.add({ matches, resolve }));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
