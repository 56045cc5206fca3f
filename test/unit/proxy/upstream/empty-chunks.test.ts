// A chunk left with nothing (no content, reasoning, tool call, finish or usage) reaches no client
// (proxy/upstream/empty-chunk.ts, the chunk decoder, the chat encoder's openai profile).
import t from 'tap';
import { ChatStreamEncoder } from '../../../../dialects/chat/encode-stream.js';
import type { CanonicalEvent, ChatChunk, ChatChunkChoice } from '../../../../core/canonical.js';
import { ChunkDecoder } from '../../../../proxy/upstream/chunk-decoder.js';
import { isEmptyChunk } from '../../../../proxy/upstream/empty-chunk.js';
import { ThinkingSeparator } from '../../../../proxy/upstream/thinking-separator.js';
import { chunk, USAGE } from '../../../fixtures/chunks.js';
import { framesOf } from '../../../kit/frames.js';
import { chatChunk } from '../../../kit/chunks.js';

const choice = (delta: ChatChunkChoice['delta'], extra: Partial<ChatChunkChoice> = {}): ChatChunkChoice => ({
  index: 0,
  delta,
  finish_reason: null,
  ...extra,
});

/** llama-server's chunks around the end of the reasoning: its parser leaves the content `"\n"` after `</think>`. */
const AFTER_THINKING = [
  { role: 'assistant', content: null },
  { reasoning_content: 'Let me think.' },
  { content: '\n' },
  { content: 'Hello' },
];

t.test('a chunk with nothing in it is empty; one with anything a client sees is not', async (t) => {
  t.ok(isEmptyChunk(chunk([choice({})]).chunk));
  t.ok(isEmptyChunk(chunk([choice({ content: '', reasoning_content: null, tool_calls: [] })]).chunk));
  t.ok(isEmptyChunk(chunk([]).chunk));
  for (const carried of [
    chunk([choice({ content: 'a' })]),
    chunk([choice({ reasoning_content: 'a' })]),
    chunk([choice({ reasoning: 'a' })]),
    chunk([choice({ tool_calls: [{ index: 0, function: { arguments: '{' } }] })]),
    chunk([choice({}, { finish_reason: 'stop' })]),
    chunk([choice({}, { logprobs: { content: [] } })]),
    chunk([choice({ role: 'assistant', content: '' })]),
    chunk([], USAGE),
    chunk([choice({})], USAGE),
  ])
    t.notOk(isEmptyChunk(carried.chunk), JSON.stringify(carried.chunk.choices[0] ?? carried.chunk.usage));
});

t.test('the chunk decoder passes on no chunk that its check left empty', async (t) => {
  const separator = new ThinkingSeparator();
  const decoder = new ChunkDecoder(4096, (seen) => separator.see(seen));
  const events: CanonicalEvent[] = [];
  const sse = AFTER_THINKING.map(
    (delta) => `data: ${JSON.stringify(chatChunk(delta as ChatChunkChoice['delta'], { finish_reason: null }))}\n\n`,
  ).join('');
  decoder.push(Buffer.from(sse + 'data: [DONE]\n\n'), (event) => void events.push(event));
  t.same(
    events.map((event) => (event.type === 'chunk' ? event.chunk.choices[0]?.delta : event.type)),
    [{ role: 'assistant', content: null }, { reasoning_content: 'Let me think.' }, { content: 'Hello' }],
  );
});

t.test(
  "chat's openai profile sends no chunk whose only news is a running usage the client did not ask for",
  async (t) => {
    const encoder = new ChatStreamEncoder({
      id: 'chatcmpl-gw',
      created: 100,
      modelId: 'qwen3-8b',
      wire: 'openai',
      includeUsage: false,
      continuousUsage: false,
    });
    const running = (delta: ChatChunkChoice['delta']): ChatChunk => chunk([choice(delta)], USAGE).chunk;
    const sent = (delta: ChatChunkChoice['delta']): number =>
      framesOf((out) => encoder.event({ type: 'chunk', chunk: running(delta) }, out)).length;
    t.equal(sent({ content: 'a' }), 1);
    t.equal(sent({}), 0);
    t.equal(sent({ content: '' }), 0);
  },
);
