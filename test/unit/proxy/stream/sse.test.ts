import t from 'tap';
import { SseReader, sseFrame, type EventSourceMessage } from '../../../../proxy/stream/sse.js';

function read(parts: Array<string | Uint8Array>, max = 1024): Array<{ event: string | undefined; data: string }> {
  const out: Array<{ event: string | undefined; data: string }> = [];
  const reader = new SseReader(
    (message: EventSourceMessage) => out.push({ event: message.event, data: message.data }),
    max,
  );
  for (const part of parts) reader.feed(typeof part === 'string' ? new TextEncoder().encode(part) : part);
  reader.end();
  return out;
}

t.test('a frame is an optional event line, a data line and a blank line', async (t) => {
  t.equal(sseFrame('message_start', '{}'), 'event: message_start\ndata: {}\n\n');
  t.equal(sseFrame(null, '[DONE]'), 'data: [DONE]\n\n');
});

t.test('events split across network chunks and several events in one chunk are both read', async (t) => {
  t.same(read(['data: {"a"', ':1}\n\ndata: 2\n\nevent: x\ndata: 3\n\n']), [
    { event: undefined, data: '{"a":1}' },
    { event: undefined, data: '2' },
    { event: 'x', data: '3' },
  ]);
});

t.test('a multi-byte character split across chunks is decoded whole', async (t) => {
  const encoded = new TextEncoder().encode('data: é\n\n');
  t.same(read([encoded.slice(0, 7), encoded.slice(7)]), [{ event: undefined, data: 'é' }]);
});

t.test('an event larger than the cap is an error, not unbounded memory', async (t) => {
  t.throws(() => read([`data: ${'x'.repeat(2000)}`], 1024), { name: 'SseTooLargeError' });
});
