// The traced gateway's collector: accepts OTLP/HTTP exports (POST /v1/traces), counts their spans and answers as a
// collector does; its CPU is the collector's, shown apart from the gateway's. A real collector does more with the
// spans, but what the gateway pays (building, batching and sending them) is the same.
// Usage: node dist/bench/otlp-sink.js --port N
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' } } });
if (values.port === undefined) throw new Error('usage: otlp-sink --port N');

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  req.resume();
  req.once('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
server.listen(Number(values.port), '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
