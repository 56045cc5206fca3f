// The common part of the search-provider fakes: a node:http server on loopback that records each request,
// lets the fake check it (answering like the real service when it is wrong) and answers according to a
// switch: normally, 429, 500, only after `slowMs` (for timeouts and aborts), or a 200 that is not JSON.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'ok' | 'rate_limited' | 'server_error' | 'slow' | 'not_json';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** How one provider's fake answers: a refusal of a malformed request (or undefined), then per mode. */
export interface FakeProtocol {
  check(request: ReceivedRequest): FakeAnswer | undefined;
  ok(request: ReceivedRequest): FakeAnswer;
  rateLimited(): FakeAnswer;
  serverError(): FakeAnswer;
}

export interface FakeSearchServer {
  /** The base URL to give the adapter. */
  readonly url: string;
  mode: FakeMode;
  /** How long `slow` waits before answering normally. */
  slowMs: number;
  readonly requests: ReceivedRequest[];
  /** The next request the fake receives, when it has it (before it answers). */
  nextRequest(): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

export async function startFakeServer(protocol: FakeProtocol): Promise<FakeSearchServer> {
  const requests: ReceivedRequest[] = [];
  const awaiting = new Set<(request: ReceivedRequest) => void>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      for (const resolve of awaiting) resolve(request);
      awaiting.clear();
      const refusal = protocol.check(request);
      if (refusal !== undefined) return send(res, refusal);
      switch (fake.mode) {
        case 'ok':
          return send(res, protocol.ok(request));
        case 'rate_limited':
          return send(res, protocol.rateLimited());
        case 'server_error':
          return send(res, protocol.serverError());
        case 'not_json':
          return send(res, { status: 200, body: '<html>a captive portal</html>' });
        case 'slow': {
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (!res.destroyed) send(res, protocol.ok(request));
          }, fake.slowMs);
          timers.add(timer);
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeSearchServer = {
    url: `http://127.0.0.1:${port}`,
    mode: 'ok',
    slowMs: 5000,
    requests,
    nextRequest: () => new Promise((resolve) => awaiting.add(resolve)),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

function send(res: ServerResponse, answer: FakeAnswer): void {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': typeof answer.body === 'string' ? 'text/html; charset=utf-8' : 'application/json',
    ...answer.headers,
  });
  res.end(text);
}

/** The pages every fake finds, whatever the query (on three domains, so filters can be tested). */
export const FAKE_PAGES = [
  {
    url: 'https://docs.example.com/guide/streaming',
    title: 'Streaming guide',
    text: 'How to stream tokens with server-sent events & keep the connection open.',
    date: '2025-03-05T00:00:00',
  },
  {
    url: 'https://blog.example.org/2025/sse-in-practice',
    title: 'SSE in practice',
    text: 'Lessons from running event streams in production.',
    date: null,
  },
  {
    url: 'https://news.example.net/articles/http-streaming',
    title: 'HTTP streaming is back',
    text: 'Why every LLM API now streams its answers.',
    date: '2025-06-01T09:30:00',
  },
] as const;
