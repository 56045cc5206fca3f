// A TCP relay in front of a server, for the faults of a network: it passes bytes both ways until a test
// freezes it (from then on it passes nothing either way and closes nothing, as a server that stops
// answering without closing its connections: a hung process, a network that drops packets); or, made with
// `dropAnswers`, it passes every request and drops every answer (a network that loses the server's reply,
// so the client sees no answer, only the connection closing when the server goes).
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpRelay {
  /** The target's URL with the relay's port. */
  url: string;
  /** Every byte after this is swallowed, both ways; the connections stay open. */
  freeze(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(targetUrl: string, options: { dropAnswers?: boolean } = {}): Promise<TcpRelay> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let frozen = false;
  const forward = (from: Socket, to: Socket | undefined): void => {
    from.on('data', (chunk) => {
      if (!frozen) to?.write(chunk);
    });
  };
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
    forward(client, upstream);
    forward(upstream, options.dropAnswers === true ? undefined : client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString().replace(/\/$/, ''),
    freeze() {
      frozen = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
