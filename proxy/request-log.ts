import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { GatewayError } from './errors.js';

/** The one log line of every request (and of every request message on a WebSocket). */
export function logRequest(
  log: Logger,
  id: string,
  req: IncomingMessage,
  path: string,
  status: number,
  startedAt: number,
  aborted: boolean,
  failure: GatewayError | undefined,
  fields: Readonly<Record<string, string | number>>,
): void {
  const ms = Math.round((performance.now() - startedAt) * 100) / 100;
  log.info(
    { requestId: id, method: req.method, path, status, ms, aborted, error: failure?.code, ...fields },
    'request',
  );
}
