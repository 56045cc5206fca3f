import t from 'tap';
import type { CanonicalEvent, FinishReason } from '../../../../core/canonical.js';
import { GatewayError } from '../../../../core/errors.js';
import { ChunkDecoder } from '../../../../proxy/upstream/chunk-decoder.js';
import { chatChunk } from '../../../kit/chunks.js';

const chunk = (delta: object, finish: FinishReason | null = null): string =>
  `data: ${JSON.stringify(chatChunk(delta, { finish_reason: finish }))}\n\n`;

function decode(parts: string[], max = 4096): { events: CanonicalEvent[]; error?: GatewayError } {
  const events: CanonicalEvent[] = [];
  const decoder = new ChunkDecoder(max, () => {});
  const emit = (event: CanonicalEvent): void => void events.push(event);
  try {
    for (const part of parts) decoder.push(Buffer.from(part), emit);
    decoder.end(emit);
  } catch (error) {
    if (error instanceof GatewayError) return { events, error };
    throw error;
  }
  return { events };
}

t.test('each data line becomes one chunk event, and [DONE] ends the stream cleanly', async (t) => {
  const { events, error } = decode([chunk({ content: 'a' }), chunk({ content: 'b' }, 'stop'), 'data: [DONE]\n\n']);
  t.equal(error, undefined);
  t.same(
    events.map((event) => (event.type === 'chunk' ? event.chunk.choices[0]?.delta.content : event.type)),
    ['a', 'b'],
  );
});

t.test('a stream that reached its finish_reason is complete without [DONE]', async (t) => {
  t.equal(decode([chunk({ content: 'a' }, 'length')]).error, undefined);
});

t.test('a stream that ends before a finish_reason or [DONE] is cut (502 upstream_stream_cut)', async (t) => {
  const { events, error } = decode([chunk({ content: 'a' })]);
  t.equal(events.length, 1, 'what arrived before the cut is still delivered');
  t.equal(error?.code, 'GW_ERR_UPSTREAM_STREAM_CUT');
});

t.test('an error event from the upstream in the middle of the stream fails it', async (t) => {
  t.equal(
    decode([chunk({ content: 'a' }), 'data: {"error":{"message":"boom"}}\n\n']).error?.code,
    'GW_ERR_UPSTREAM_FAILED',
  );
  t.equal(decode(['data: {"object":"error","message":"boom"}\n\n']).error?.code, 'GW_ERR_UPSTREAM_FAILED');
});

t.test('data that is not a JSON chunk is a bad upstream response', async (t) => {
  t.equal(decode(['data: not json\n\n']).error?.code, 'GW_ERR_UPSTREAM_BAD_RESPONSE');
  t.equal(decode(['data: {"id":"x"}\n\n']).error?.code, 'GW_ERR_UPSTREAM_BAD_RESPONSE');
});

t.test('an oversized event is a bad upstream response, not unbounded memory', async (t) => {
  t.equal(decode([`data: ${'x'.repeat(5000)}`], 1024).error?.code, 'GW_ERR_UPSTREAM_BAD_RESPONSE');
});
