// The floor of a Node proxy, for comparison: http-proxy-3 passing bytes through, nothing parsed.
// Usage: node dist/bench/bare-http-proxy.js --port N --target http://127.0.0.1:PORT [--connections 128]
import { Agent, createServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { createProxyServer } from 'http-proxy-3';

const { values } = parseArgs({
  options: { port: { type: 'string' }, target: { type: 'string' }, connections: { type: 'string', default: '128' } },
});
if (values.port === undefined || values.target === undefined)
  throw new Error('usage: bare-http-proxy --port N --target URL');

// Keep-alive upstream connections, as many as the gateway's pool keeps (upstream.connections).
const agent = new Agent({ keepAlive: true, maxSockets: Number(values.connections) });
const proxy = createProxyServer({ target: values.target, agent });
proxy.on('error', (_error, _req, res) => {
  if (isResponse(res) && !res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
  else res.destroy();
});

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => proxy.web(req, res));
server.listen(Number(values.port), '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
});

function isResponse(res: ServerResponse | Socket): res is ServerResponse {
  return 'writeHead' in res;
}
