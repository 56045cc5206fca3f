// The other floor: an undici Pool for the upstream leg (its stream() API), the body written through with backpressure, nothing parsed.
// Usage: node dist/bench/bare-undici.js --port N --target http://127.0.0.1:PORT [--connections 128]
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: { port: { type: 'string' }, target: { type: 'string' }, connections: { type: 'string', default: '128' } },
});
if (values.port === undefined || values.target === undefined)
  throw new Error('usage: bare-undici --port N --target URL');

/** Headers that describe one connection, not the message; never passed on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

const pool = new Pool(values.target, {
  connections: Number(values.connections),
  pipelining: 1,
  keepAliveTimeout: 30_000,
});

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  // pool.stream() writes the upstream body straight into res, pausing the socket when res.write() returns false.
  pool
    .stream(
      {
        method: req.method as 'POST',
        path: req.url ?? '/',
        headers: endToEnd(req.headers),
        body: req,
        signal: abort.signal,
        opaque: res,
      },
      ({ statusCode, headers, opaque }) => {
        const out = opaque as typeof res;
        out.writeHead(statusCode, endToEnd(headers) as OutgoingHttpHeaders);
        return out;
      },
    )
    .catch(() => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      else res.destroy();
    });
});
server.listen(Number(values.port), '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.close();
});

function endToEnd(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}
