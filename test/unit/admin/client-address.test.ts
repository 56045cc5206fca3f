// The client's address behind the operator's reverse proxies (admin/client-address.ts).
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { clientAddressOf } from '../../../admin/client-address.js';

const request = (peer: string | undefined, forwardedFor?: string): IncomingMessage =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

t.test('without trusted proxies the address is the socket peer, whatever X-Forwarded-For says', async (t) => {
  const addressOf = clientAddressOf();
  t.equal(addressOf(request('203.0.113.9', '198.51.100.1')), '203.0.113.9');
  t.equal(addressOf(request('::ffff:127.0.0.1')), '127.0.0.1', 'an IPv4-mapped peer is written as IPv4');
  t.equal(addressOf(request(undefined)), null);
});

t.test('from a trusted proxy the address is the rightmost forwarded hop that is not a trusted proxy', async (t) => {
  const addressOf = clientAddressOf(['127.0.0.1', '10.0.0.2']);
  t.equal(addressOf(request('::ffff:127.0.0.1', '198.51.100.7')), '198.51.100.7');
  t.equal(
    addressOf(request('127.0.0.1', '6.6.6.6, 198.51.100.7, 10.0.0.2')),
    '198.51.100.7',
    'what the client prepended is not believed',
  );
  t.equal(addressOf(request('127.0.0.1')), '127.0.0.1', 'no header: the proxy itself');
  t.equal(addressOf(request('203.0.113.9', '198.51.100.7')), '203.0.113.9', 'an untrusted peer is not believed');
});
