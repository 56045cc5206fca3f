// The other floor: an undici Pool for the upstream leg, the body piped through with backpressure, nothing parsed.
// Usage: node dist/bench/bare-undici.js --port N --target http://127.0.0.1:PORT [--connections 128]
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({ options: { port: { type: 'string' }, target: { type: 'string' }, connections: { type: 'string', default: '128' } } });
if (values.port === undefined || values.target === undefined) throw new Error('usage: bare-undici --port N --target URL');

/** Headers that describe one connection, not the message; never passed on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

const pool = new Pool(values.target, { connections: Number(values.connections), pipelining: 1, keepAliveTimeout: 30_000 });

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  pool
    .request({ method: req.method as 'POST', path: req.url ?? '/', headers: endToEnd(req.headers), body: req, signal: abort.signal })
    .then(async (upstream) => {
      res.writeHead(upstream.statusCode, endToEnd(upstream.headers) as OutgoingHttpHeaders);
      // pipeline pauses the upstream body when res.write() returns false and resumes it on 'drain'.
      await pipeline(upstream.body, res);
    })
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

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}
