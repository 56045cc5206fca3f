// A TCP relay in front of a server that passes every request and drops every answer: as a network that
// loses the server's reply, so the client sees no answer, only the connection closing when the server goes.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface AnswerDroppingRelay {
  /** The target's URL with the relay's port. */
  url: string;
  close(): Promise<void>;
}

export async function startAnswerDroppingRelay(targetUrl: string): Promise<AnswerDroppingRelay> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.resume(); // the answer, read and dropped
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString().replace(/\/$/, ''),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
