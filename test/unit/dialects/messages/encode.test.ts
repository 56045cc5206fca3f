import t, { type Test } from 'tap';
import { encodeMessagesBody } from '../../../../dialects/messages/encode-body.js';
import { MessagesStreamEncoder } from '../../../../dialects/messages/encode-stream.js';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { CanonicalEvent, ChatChunkChoice, ChatUsage } from '../../../../core/canonical.js';
import { GatewayError } from '../../../../core/errors.js';
import type { ChunkEvent } from '../../../fixtures/chunks.js';
import { encodeAll, framesOf } from '../../../kit/frames.js';
import { deltaEvent, usageEvent } from '../../../kit/chunks.js';

/** A chunk as vLLM streams it mid-answer: no finish reason yet unless given. */
const chunk = (delta: ChatChunkChoice['delta'], extra: Partial<ChatChunkChoice> = {}, usage?: ChatUsage): ChunkEvent =>
  deltaEvent(delta, { finish_reason: null, ...extra }, usage);
const call = (index: number, args: string, head?: { id: string; name: string }): ChunkEvent =>
  chunk({
    tool_calls: [
      {
        index,
        ...(head
          ? { id: head.id, type: 'function' as const, function: { name: head.name, arguments: args } }
          : { function: { arguments: args } }),
      },
    ],
  });

interface Event {
  event: string;
  data: Record<string, unknown> & { type: string };
}

/** A stand-in for the gateway's thinking signer: shows what text was signed. */
const sign = (thinking: string): string => `sig(${thinking})`;

/** Anthropic's per-TTL cache writes, none. */
const NO_WRITES = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 };

function encode(events: CanonicalEvent[], stopSequences: string[] = []): Event[] {
  const encoder = new MessagesStreamEncoder({ id: 'msg_1', modelId: 'qwen3-8b', stopSequences, sign });
  return encodeAll(encoder, events).map((frame) => ({ event: frame.event!, data: JSON.parse(frame.data) }));
}

/** Checks the block bookkeeping every client relies on: contiguous indices, one open block, deltas only inside. */
function assertWellFormed(t: Test, events: Event[]): void {
  let open: number | null = null;
  let next = 0;
  for (const { event, data } of events) {
    t.equal(event, data.type, 'the event name equals data.type');
    if (event === 'content_block_start') {
      t.equal(open, null, 'one block open at a time');
      t.equal(data.index, next++, 'indices are contiguous from 0');
      open = data.index as number;
    } else if (event === 'content_block_delta') t.equal(data.index, open, 'a delta belongs to the open block');
    else if (event === 'content_block_stop') {
      t.equal(data.index, open);
      open = null;
    }
  }
  t.equal(open, null, 'every block is closed');
  t.same(
    events.map((e) => e.event).filter((name) => name.startsWith('message')),
    ['message_start', 'message_delta', 'message_stop'],
  );
}

const toolInputs = (events: Event[]): Array<[string, string]> => {
  const out = new Map<number, [string, string]>();
  for (const { data } of events) {
    if (data.type === 'content_block_start' && (data.content_block as { type: string }).type === 'tool_use')
      out.set(data.index as number, [(data.content_block as { name: string }).name, '']);
    if (data.type === 'content_block_delta' && (data.delta as { type: string }).type === 'input_json_delta')
      out.get(data.index as number)![1] += (data.delta as { partial_json: string }).partial_json;
  }
  return [...out.values()];
};

t.test(
  'message_start carries the whole message object with numeric usage, input tokens from the running usage',
  async (t) => {
    const events = encode([
      chunk(
        { role: 'assistant', content: '' },
        {},
        { prompt_tokens: 20, completion_tokens: 0, total_tokens: 20, prompt_tokens_details: { cached_tokens: 16 } },
      ),
      chunk({ content: 'Hi' }, { finish_reason: 'stop' }),
    ]);
    t.same(events[0]!.data, {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'qwen3-8b',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 4,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 16,
          cache_creation: NO_WRITES,
        },
      },
    });
  },
);

t.test(
  'regression: message_start carries the prompt tokens on llama-server (its role chunk has no usage, the next chunk its running usage)',
  async (t) => {
    const events = encode([
      chunk({ role: 'assistant', content: null }),
      chunk({ content: 'Hello' }, {}, { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 }),
      chunk({}, { finish_reason: 'stop' }),
    ]);
    t.equal(events[0]!.data.type, 'message_start');
    t.match(events[0]!.data.message, { usage: { input_tokens: 9, output_tokens: 0 } });
  },
);

t.test('text streams as one text block with text_delta, then end_turn', async (t) => {
  const events = encode([
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'Hel', tool_calls: [] }),
    chunk({ content: 'lo' }, { finish_reason: 'stop' }),
    usageEvent({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }),
  ]);
  assertWellFormed(t, events);
  t.same(events[1]!.data, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  t.same(
    events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta),
    [
      { type: 'text_delta', text: 'Hel' },
      { type: 'text_delta', text: 'lo' },
    ],
  );
  t.notOk(
    events.some((e) => (e.data.delta as { type?: string } | undefined)?.type === 'input_json_delta'),
    "vLLM's empty tool_calls beside text makes no input_json_delta",
  );
  t.same(events.at(-2)!.data, {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: {
      input_tokens: 5,
      output_tokens: 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: NO_WRITES,
    },
  });
});

t.test('reasoning becomes a thinking block, closed by the signature of its text, before the text block', async (t) => {
  const events = encode([
    chunk({ reasoning_content: 'Let me think' }),
    chunk({ reasoning: ' more' }),
    chunk({ content: 'Answer' }, { finish_reason: 'stop' }),
  ]);
  assertWellFormed(t, events);
  const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block);
  t.same(starts, [
    { type: 'thinking', thinking: '', signature: '' },
    { type: 'text', text: '' },
  ]);
  t.same(
    events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta),
    [
      { type: 'thinking_delta', thinking: 'Let me think' },
      { type: 'thinking_delta', thinking: ' more' },
      { type: 'signature_delta', signature: 'sig(Let me think more)' },
      { type: 'text_delta', text: 'Answer' },
    ],
  );
});

t.test('a tool call whose first delta has empty arguments and whose arguments come in fragments', async (t) => {
  const events = encode([
    call(0, '', { id: 'call_1', name: 'get_weather' }),
    call(0, '{"city"'),
    call(0, ': "Paris"}'),
    chunk({}, { finish_reason: 'tool_calls' }),
  ]);
  assertWellFormed(t, events);
  t.same(events[1]!.data.content_block, { type: 'tool_use', id: 'toolu_call_1', name: 'get_weather', input: {} });
  t.same(toolInputs(events), [['get_weather', '{"city": "Paris"}']]);
  t.equal((events.at(-2)!.data.delta as { stop_reason: string }).stop_reason, 'tool_use');
});

t.test('arguments in one chunk with the name', async (t) => {
  t.same(toolInputs(encode([call(0, '{"a":1}', { id: 'c', name: 'f' })])), [['f', '{"a":1}']]);
});

t.test('parallel calls one after the other each get their block', async (t) => {
  const events = encode([
    call(0, '{"x":1}', { id: 'a', name: 'f' }),
    call(1, '', { id: 'b', name: 'g' }),
    call(1, '{"y":2}'),
  ]);
  assertWellFormed(t, events);
  t.same(toolInputs(events), [
    ['f', '{"x":1}'],
    ['g', '{"y":2}'],
  ]);
});

t.test('interleaved calls: no fragment is lost and one block stays open at a time', async (t) => {
  const events = encode([
    call(0, '{"x":', { id: 'a', name: 'f' }),
    call(1, '{"y":', { id: 'b', name: 'g' }),
    call(0, '1}'),
    call(1, '2}'),
    chunk({}, { finish_reason: 'tool_calls' }),
  ]);
  assertWellFormed(t, events);
  t.same(toolInputs(events), [
    ['f', '{"x":1}'],
    ['g', '{"y":2}'],
  ]);
});

t.test('text before a tool call, then the call: tool_use stop even though the upstream said stop', async (t) => {
  const events = encode([
    chunk({ content: 'Checking.' }),
    call(0, '{}', { id: 'a', name: 'f' }),
    chunk({}, { finish_reason: 'stop' }),
  ]);
  assertWellFormed(t, events);
  t.same(
    events.filter((e) => e.event === 'content_block_start').map((e) => (e.data.content_block as { type: string }).type),
    ['text', 'tool_use'],
  );
  t.equal((events.at(-2)!.data.delta as { stop_reason: string }).stop_reason, 'tool_use');
});

t.test('length is max_tokens; a matched stop string is stop_sequence with the string', async (t) => {
  t.equal(
    (encode([chunk({ content: 'a' }, { finish_reason: 'length' })]).at(-2)!.data.delta as { stop_reason: string })
      .stop_reason,
    'max_tokens',
  );
  const stopped = encode([chunk({ content: 'a' }, { finish_reason: 'stop', stop_reason: 'END' })], ['END']).at(-2)!.data
    .delta;
  t.same(stopped, { stop_reason: 'stop_sequence', stop_sequence: 'END' });
  const eos = encode([chunk({ content: 'a' }, { finish_reason: 'stop', stop_reason: 151645 })], ['END']).at(-2)!.data
    .delta;
  t.same(eos, { stop_reason: 'end_turn', stop_sequence: null }, 'an end-of-sequence token id is a plain end_turn');
});

t.test('an empty upstream answer still yields a well-formed message', async (t) => {
  const events = encode([]);
  assertWellFormed(t, events);
});

t.test('an error after the first byte is an error event; a ping is a ping event', async (t) => {
  const encoder = new MessagesStreamEncoder({ id: 'm', modelId: 'x', stopSequences: [], sign });
  t.same(
    framesOf((out) => encoder.error(new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'busy'), out)),
    [{ event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"busy"}}' }],
  );
  t.same(
    framesOf((out) => encoder.ping?.(out)),
    [{ event: 'ping', data: '{"type":"ping"}' }],
  );
});

t.test(
  'non-streaming body: thinking, text and tool_use blocks, stop_reason, usage without cached tokens',
  async (t) => {
    const accumulator = new CompletionAccumulator();
    for (const event of [
      chunk({ reasoning_content: 'hm', content: 'Sure.' }),
      call(0, '{"city":"Oslo"}', { id: 'c1', name: 'get_weather' }),
      chunk({}, { finish_reason: 'stop' }),
      usageEvent({
        prompt_tokens: 30,
        completion_tokens: 9,
        total_tokens: 39,
        prompt_tokens_details: { cached_tokens: 16 },
      }),
    ])
      accumulator.add(event.chunk);
    t.same(encodeMessagesBody(accumulator.result(), 'msg_1', 'qwen3-8b', [], sign), {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'qwen3-8b',
      content: [
        { type: 'thinking', thinking: 'hm', signature: 'sig(hm)' },
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'toolu_c1', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 14,
        output_tokens: 9,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 16,
        cache_creation: NO_WRITES,
      },
    });
  },
);

t.test('cache reads and the gateway-side cache writes are reported apart from input_tokens, never twice', async (t) => {
  const usage: ChatUsage = {
    prompt_tokens: 1000,
    completion_tokens: 5,
    total_tokens: 1005,
    prompt_tokens_details: {
      cached_tokens: 600,
      cache_creation: { ephemeral_5m_input_tokens: 250, ephemeral_1h_input_tokens: 100 },
    },
  };
  const expected = {
    input_tokens: 50,
    output_tokens: 5,
    cache_creation_input_tokens: 350,
    cache_read_input_tokens: 600,
    cache_creation: { ephemeral_5m_input_tokens: 250, ephemeral_1h_input_tokens: 100 },
  };
  const accumulator = new CompletionAccumulator();
  accumulator.add(usageEvent(usage).chunk);
  t.same(encodeMessagesBody(accumulator.result(), 'msg_1', 'qwen3-8b', [], sign).usage, expected, 'body');
  const events = encode([chunk({ content: 'Hi' }, { finish_reason: 'stop' }, usage)]);
  t.same((events[0]!.data.message as { usage: unknown }).usage, { ...expected, output_tokens: 0 }, 'message_start');
  t.same(events.at(-2)!.data.usage, expected, 'message_delta');
});
