// Which client a request comes from, for the audit log and the sign-in throttle: the socket's peer; or,
// when that peer is one of the operator's reverse proxies, the address they forwarded in X-Forwarded-For
// (the rightmost hop that is not a trusted proxy: a client can prepend anything, but not append).
import type { IncomingMessage } from 'node:http';

export type AddressOf = (req: IncomingMessage) => string | null;

export function clientAddressOf(trustedProxies: readonly string[] = []): AddressOf {
  const trusted = new Set(trustedProxies.map(plainAddress));
  return (req) => {
    const peer = req.socket.remoteAddress;
    if (peer === undefined) return null;
    const address = plainAddress(peer);
    if (!trusted.has(address)) return address;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((hop) => plainAddress(hop.trim()))
      .filter((hop) => hop !== '');
    for (let i = hops.length - 1; i >= 0; i--) if (!trusted.has(hops[i]!)) return hops[i]!;
    return address;
  };
}

/** An IPv4 address as itself, not as the IPv6-mapped form a dual-stack socket reports. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
