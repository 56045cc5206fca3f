// One webhook POST, through node:http(s) rather than fetch so that the address actually connected to is
// checked: unless the operator allows private networks, an endpoint that is (or resolves to) a loopback,
// private, link-local or otherwise internal address is refused, however its name resolves at the time
// (no DNS rebinding past the check). Organizations' admins choose the URLs; the gateway's own network is
// not theirs to reach.
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';

/** Where a webhook may not go unless `allowPrivateNetworks`. */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv6');

/** The refusal of an internal address: retrying cannot help. */
export class InternalAddressError extends Error {}

export function isInternal(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return INTERNAL.check(mapped[1]!, 'ipv4');
  return INTERNAL.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

const refused = (address: string) =>
  new InternalAddressError(`${address} is an internal address (the operator has not allowed private networks)`);

/** dns.lookup, refusing internal addresses (one address, or all of them when Node asks for all: happy eyeballs). */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, '', 0);
    const internal = addresses.find((entry) => isInternal(entry.address));
    if (internal !== undefined) return callback(refused(internal.address), '', 0);
    if (options.all === true) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

export interface WebhookPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

/** The receiver's status; throws on a connection failure, a timeout or an internal address. */
export function postWebhook(post: WebhookPost): Promise<number> {
  const url = new URL(post.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!post.allowPrivateNetworks && isIP(host) !== 0 && isInternal(host)) return Promise.reject(refused(host));
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
    timeout: post.timeoutMs,
    ...(post.allowPrivateNetworks ? {} : { lookup: checkedLookup }),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${post.timeoutMs} ms`)), post.timeoutMs);
    const req = send(url, options, (res) => {
      clearTimeout(timer);
      res.resume(); // the answer's body is not read
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${post.timeoutMs} ms`)));
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(post.body);
  });
}
