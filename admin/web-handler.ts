// What the admin and console listeners share: one node:http handler that runs a request's work, turns
// whatever it throws into the JSON error (a 500 without its text, logged), and logs one line per request;
// and the answer of a route table.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { asAdminError } from './errors.js';
import { SECURITY_HEADERS, sendError, sendJson } from './http.js';
import { matchRoute, type AdminRoute } from './routes.js';

/** `listener` names the log lines (`admin request`, `console request`). */
export function webHandler(
  log: Logger,
  listener: 'admin' | 'console',
  work: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>,
): RequestListener {
  return (req, res) => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://listener.invalid');
    const done = (error?: unknown): void => {
      if (error !== undefined) {
        const failure = asAdminError(error);
        if (failure.status >= 500) log.error({ err: error, path: url.pathname }, `${listener} request failed`);
        if (!res.headersSent) sendError(res, failure);
        else res.destroy();
      }
      log.info(
        {
          [listener]: true,
          method: req.method,
          path: url.pathname,
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
        },
        `${listener} request`,
      );
    };
    work(req, res, url).then(() => done(), done);
  };
}

/** Runs the route the method and path name (404 or 405 when none does) and writes its answer. */
export async function answerRoute(
  req: IncomingMessage,
  res: ServerResponse,
  routes: readonly AdminRoute[],
  url: URL,
): Promise<void> {
  const { route, params } = matchRoute(routes, req.method ?? 'GET', url.pathname);
  const answer = await route.handle({ req, params, query: url.searchParams });
  if (answer.write === undefined) return sendJson(res, answer.status, answer.body, answer.headers);
  // Streamed, without a length: chunked. A failure past this point cuts the connection (webHandler).
  res.writeHead(answer.status, { ...SECURITY_HEADERS, ...answer.headers });
  await answer.write(res);
}
