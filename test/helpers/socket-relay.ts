// A loopback relay in front of the gateway that passes everything through (HTTP requests, WebSocket
// upgrades with their headers, messages both ways) and records the WebSocket traffic: what a client such as
// Codex sends on the socket, which nothing in the gateway logs.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

/** A JSON message of the socket, read loose (the tests t.match them). */
export type SocketMessage = Record<string, unknown> & { type: string };

/** One WebSocket the client opened through the relay. */
export interface RelayedSocket {
  /** The client's upgrade request headers. */
  headers: IncomingHttpHeaders;
  /** The client's messages, in order. */
  sent: SocketMessage[];
  /** The gateway's messages, in order. */
  received: SocketMessage[];
}

export interface SocketRelay {
  /** The relay's base URL for clients: as the gateway's, + /v1. */
  baseURL: string;
  sockets: RelayedSocket[];
  close(): Promise<void>;
}

/** Headers of one hop of a WebSocket handshake, which the relay's own connection to the gateway sets itself. */
const HOP_HEADERS = /^(host|connection|upgrade|sec-websocket-.*)$/;

export async function startSocketRelay(gatewayURL: string): Promise<SocketRelay> {
  const target = new URL(gatewayURL);
  const sockets: RelayedSocket[] = [];
  const open = new Set<WebSocket>();
  const server = createServer((req, res) => {
    const forwarded = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name, value]) => !HOP_HEADERS.test(name) && typeof value === 'string'),
    ) as Record<string, string>;
    const gateway = new WebSocket(`ws://${target.host}${req.url ?? '/'}`, { headers });
    gateway.on('error', () => socket.destroy());
    gateway.once('open', () =>
      wss.handleUpgrade(req, socket, head, (client) => {
        const relayed: RelayedSocket = { headers: req.headers, sent: [], received: [] };
        sockets.push(relayed);
        open.add(client).add(gateway);
        client.on('message', (data) => {
          relayed.sent.push(JSON.parse(String(data)) as SocketMessage);
          gateway.send(String(data));
        });
        gateway.on('message', (data) => {
          relayed.received.push(JSON.parse(String(data)) as SocketMessage);
          client.send(String(data));
        });
        client.on('close', () => gateway.close());
        gateway.on('close', () => client.close());
        client.on('error', () => {});
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    sockets,
    close() {
      for (const ws of open) ws.terminate();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
