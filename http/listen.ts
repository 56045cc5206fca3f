// Starting and stopping a node:http server as promises: a listen error (port taken) rejects instead of
// being thrown at the process, and a close also ends the keep-alive connections that would hold it open.
import type { Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  const closed = stopListening(server);
  server.closeAllConnections();
  return closed;
}

/**
 * Stops accepting connections and closes the idle keep-alive ones (Node's `close`); resolves once the
 * last connection is closed. Called once: a second `close` would wait for an event already past.
 */
export function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Stops accepting connections but leaves the open ones be, idle keep-alive ones included (the TCP
 * server's `close`, not node:http's, which would also close the idle ones at once); resolves once the
 * last connection is closed. A draining node uses it: a reverse proxy may be sending a request on an idle
 * connection at the very moment it closes, and will not send that request again (a POST); left open, the
 * connection carries that request, answered with `connection: close`.
 */
export function stopAccepting(server: Server): Promise<void> {
  return new Promise((resolve) => NetServer.prototype.close.call(server, () => resolve()));
}

/** The base URL of a listening server, e.g. http://127.0.0.1:8080 (IPv6 addresses in brackets). */
export function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
