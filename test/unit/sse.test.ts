import t from 'tap';
import { readSse, sseFrame } from '../../proxy/sse.js';

async function* bytes(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function collect(source: AsyncIterable<Uint8Array>, max = 1024): Promise<Array<{ event: string | undefined; data: string }>> {
  const out = [];
  for await (const message of readSse(source, max)) out.push({ event: message.event, data: message.data });
  return out;
}

t.test('a frame is an optional event line, a data line and a blank line', async (t) => {
  t.equal(sseFrame('message_start', '{}'), 'event: message_start\ndata: {}\n\n');
  t.equal(sseFrame(null, '[DONE]'), 'data: [DONE]\n\n');
});

t.test('events split across network chunks and several events in one chunk are both read', async (t) => {
  t.same(await collect(bytes('data: {"a"', ':1}\n\ndata: 2\n\nevent: x\ndata: 3\n\n')), [
    { event: undefined, data: '{"a":1}' },
    { event: undefined, data: '2' },
    { event: 'x', data: '3' },
  ]);
});

t.test('a multi-byte character split across chunks is decoded whole', async (t) => {
  const encoded = new TextEncoder().encode('data: é\n\n');
  async function* split(): AsyncGenerator<Uint8Array> {
    yield encoded.slice(0, 7);
    yield encoded.slice(7);
  }
  t.same(await collect(split()), [{ event: undefined, data: 'é' }]);
});

t.test('an event larger than the cap is an error, not unbounded memory', async (t) => {
  await t.rejects(collect(bytes(`data: ${'x'.repeat(2000)}`), 1024), { name: 'SseTooLargeError' });
});
