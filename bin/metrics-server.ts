// The metrics listener: GET /metrics in the Prometheus text format, on its own host and port
// (`metrics.host`, `metrics.port`), apart from the API so that it is never exposed with it. A node of several
// workers serves it from its primary, every worker's series summed (bin/workers.ts).
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { closeServer, listen, urlOf } from '../http/listen.js';

/** What the listener answers with: the text of one scrape, and its content type. */
export interface MetricsSource {
  render(): Promise<string>;
  readonly contentType: string;
}

export interface RunningMetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(
  metrics: MetricsSource,
  address: { host: string; port: number },
  log: Logger,
): Promise<RunningMetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: the metrics are at /metrics.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Use GET.\n');
      return;
    }
    metrics.render().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        log.error({ err: error }, 'metrics could not be collected');
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('The metrics could not be collected.\n');
      },
    );
  });
  await listen(server, address.port, address.host);
  return { url: urlOf(server), close: () => closeServer(server) };
}
