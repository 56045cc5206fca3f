// The gateway's node:http server, with the connection-level input limits.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { ConnectionCap } from './connection-cap.js';
import { answerClientError } from './client-error.js';
import { checkEveryMs } from './deadlines.js';
import type { ErrorRenderer } from '../core/dialect.js';

export interface HttpServerOptions {
  /** A request's headers must arrive within this time of its first byte (408). */
  headersTimeoutMs: number;
  connectionCap: ConnectionCap;
  /** The error shape for a request path (to answer Node's refusals in the right dialect). */
  errorsFor: (path: string) => ErrorRenderer;
  log: Logger;
}

export function createHttpServer(listener: RequestListener, options: HttpServerOptions): Server {
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      headersTimeout: options.headersTimeoutMs,
      // Node's whole-request timeout is off: the body's own deadline (server.body_timeout_ms) is the
      // gateway's, answered in the route's dialect (http/body.ts).
      requestTimeout: 0,
      // How often Node looks for connections past the headers timeout: often enough to keep to it.
      connectionsCheckingInterval: checkEveryMs(options.headersTimeoutMs),
    },
    listener,
  );
  server.on('clientError', (error: Error, socket) => {
    const answer = answerClientError(error, socket, options.errorsFor, options.headersTimeoutMs);
    // A request the parser refused gets its log line too (no method: Node does not give one).
    if (answer !== undefined)
      options.log.info(
        {
          requestId: answer.requestId,
          path: answer.path === '' ? undefined : answer.path,
          status: answer.status,
          error: answer.error.code,
        },
        'request',
      );
  });
  options.connectionCap.attach(server);
  return server;
}
