import t from 'tap';
import { encodeResponsesBody } from '../../../../dialects/responses/encode-body.js';
import { ResponsesStreamEncoder } from '../../../../dialects/responses/encode-stream.js';
import type { ResponseContext } from '../../../../dialects/responses/response-object.js';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { CanonicalEvent } from '../../../../core/canonical.js';
import type { WireProfile } from '../../../../core/dialect.js';
import { GatewayError } from '../../../../core/errors.js';
import { chunk, textStream, toolStream, USAGE, type ChunkEvent } from '../../../fixtures/chunks.js';
import { encodeAll, framesOf, type Frame as RawFrame } from '../../../kit/frames.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed wire JSON, read deep and loose; t.same and t.match check it
type Event = Record<string, any>;
interface Frame {
  event: string;
  data: Event;
}

const context = (wire: WireProfile, request: Record<string, unknown> = {}): ResponseContext => ({
  id: 'gw1',
  created: 100,
  modelId: 'qwen3-8b',
  wire,
  request: { model: 'qwen3-8b', input: 'x', ...request },
});

/** Text, then a tool call (vLLM streams "content before the call" this way). */
const textThenTool: ChunkEvent[] = [
  chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]),
  chunk([{ index: 0, delta: { content: 'Let me check.' } }]),
  chunk([
    {
      index: 0,
      delta: {
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      },
    },
  ]),
  chunk([
    {
      index: 0,
      delta: { tool_calls: [{ index: 0, function: { arguments: '{"city": "Oslo"}' } }] },
      finish_reason: 'tool_calls',
    },
  ]),
  chunk([], USAGE),
];

/** Cut by max_tokens. */
const cutStream: ChunkEvent[] = [
  chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]),
  chunk([{ index: 0, delta: { content: 'Once upon' }, finish_reason: 'length' }]),
  chunk([], USAGE),
];

const emptyStream: ChunkEvent[] = [
  chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]),
  chunk([{ index: 0, delta: { content: '' }, finish_reason: 'stop' }]),
  chunk([], USAGE),
];

function parsed(frames: RawFrame[]): Frame[] {
  return frames.map((frame) => {
    t.ok(frame.event !== null, 'every frame has an event name');
    return { event: frame.event!, data: JSON.parse(frame.data) as Event };
  });
}

function encode(events: CanonicalEvent[], wire: WireProfile = 'spec', request: Record<string, unknown> = {}): Frame[] {
  return parsed(encodeAll(new ResponsesStreamEncoder(context(wire, request)), events));
}

function body(events: ChunkEvent[], wire: WireProfile = 'spec'): Event {
  const accumulator = new CompletionAccumulator();
  for (const event of events) accumulator.add(event.chunk);
  return encodeResponsesBody(accumulator.result(), context(wire)) as Event;
}

t.test('a text answer: created, item and part added, deltas, the three done events, completed', async (t) => {
  t.same(
    encode(textStream).map((frame) => frame.event),
    [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
});

t.test('every event names itself in data.type, with a sequence_number rising from 0', async (t) => {
  for (const wire of ['spec', 'openai'] as const) {
    const all = encode(textThenTool, wire);
    all.forEach((frame, index) => {
      t.equal(frame.data.type, frame.event);
      t.equal(frame.data.sequence_number, index);
    });
  }
});

t.test("profile spec: the spec's fields beside OpenAI's (6.3): created, delta {output_text}, completed", async (t) => {
  const all = encode(textStream, 'spec');
  const created = all[0]!.data;
  t.match(created, {
    id: 'resp_gw1',
    object: 'response',
    created: 100,
    model: 'qwen3-8b',
    response: {
      id: 'resp_gw1',
      object: 'response',
      created_at: 100,
      model: 'qwen3-8b',
      status: 'in_progress',
      output: [],
    },
  });
  const deltas = all.filter((frame) => frame.event === 'response.output_text.delta').map((frame) => frame.data);
  t.same(
    deltas.map((delta) => delta.delta),
    [{ output_text: 'Hello' }, { output_text: ' world' }],
  );
  for (const delta of deltas)
    t.match(delta, { object: 'response.delta', item_id: 'msg_gw1', output_index: 0, content_index: 0 });
  const completed = all.at(-1)!.data;
  t.match(completed, { object: 'response.completed', id: 'resp_gw1', status: 'completed', finish_reason: 'stop' });
  t.match(completed.response, {
    id: 'resp_gw1',
    status: 'completed',
    finish_reason: 'stop',
    output_text: 'Hello world',
    created: 100,
    created_at: 100,
  });
});

t.test("profile openai: OpenAI's events exactly: delta a string, no spec fields", async (t) => {
  const all = encode(textStream, 'openai');
  t.notOk('object' in all[0]!.data);
  t.notOk('id' in all[0]!.data);
  const deltas = all.filter((frame) => frame.event === 'response.output_text.delta').map((frame) => frame.data);
  t.same(
    deltas.map((delta) => delta.delta),
    ['Hello', ' world'],
  );
  t.notOk('object' in deltas[0]!);
  const completed = all.at(-1)!.data;
  t.same(Object.keys(completed).sort(), ['response', 'sequence_number', 'type']);
  t.notOk('finish_reason' in completed.response);
  t.notOk('output_text' in completed.response);
});

t.test('response.completed carries the full output and usage (input, output, total tokens)', async (t) => {
  const completed = encode(textStream).at(-1)!.data;
  t.same(completed.response.output, [
    {
      type: 'message',
      id: 'msg_gw1',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello world', annotations: [] }],
    },
  ]);
  t.same(completed.response.usage, {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 3,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  });
});

t.test("ids are stable across the events and equal to the non-streaming body's", async (t) => {
  for (const events of [textStream, textThenTool]) {
    const all = encode(events);
    const streamed = all.at(-1)!.data.response;
    const itemIds = new Set<string>(streamed.output.map((item: Event) => item.id));
    for (const frame of all) {
      if (frame.data.item_id !== undefined) t.ok(itemIds.has(frame.data.item_id), `${frame.event} names a final item`);
      if (frame.data.item !== undefined) t.equal(frame.data.item.id, streamed.output[frame.data.output_index].id);
      if (frame.data.response !== undefined) t.equal(frame.data.response.id, 'resp_gw1');
    }
    const whole = body(events);
    t.equal(whole.id, streamed.id);
    t.same(whole.output, streamed.output, 'the same items as the non-streaming body');
    t.same(whole.usage, streamed.usage);
  }
});

t.test('text then a tool call: the message closes before the function_call item opens', async (t) => {
  const all = encode(textThenTool, 'openai');
  t.same(
    all.map((frame) => frame.event),
    [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  t.same(all[7]!.data.item, {
    type: 'function_call',
    id: 'fc_gw1_0',
    call_id: 'call_a',
    name: 'get_weather',
    arguments: '',
    status: 'in_progress',
  });
  t.match(all[9]!.data, { item_id: 'fc_gw1_0', output_index: 1, name: 'get_weather', arguments: '{"city": "Oslo"}' });
  t.equal(all.at(-1)!.data.response.status, 'completed');
});

t.test('interleaved parallel calls keep their own items and arguments', async (t) => {
  const output = encode(toolStream, 'openai').at(-1)!.data.response.output;
  t.same(
    output.map((item: Event) => [item.id, item.call_id, item.name, item.arguments]),
    [
      ['fc_gw1_0', 'call_a', 'get_weather', '{"city": "Paris"}'],
      ['fc_gw1_1', 'call_b', 'get_time', '{}'],
    ],
  );
  t.same(body(toolStream, 'openai').output, output);
});

t.test(
  'max tokens: status incomplete with incomplete_details max_output_tokens, ended by response.incomplete',
  async (t) => {
    for (const wire of ['spec', 'openai'] as const) {
      const last = encode(cutStream, wire).at(-1)!;
      t.equal(last.event, 'response.incomplete');
      t.match(last.data.response, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
      t.equal(last.data.response.output[0].status, 'incomplete');
      t.match(body(cutStream, wire), { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    }
    t.match(encode(cutStream, 'spec').at(-1)!.data, {
      object: 'response.incomplete',
      status: 'incomplete',
      finish_reason: 'length',
    });
  },
);

t.test('an empty answer still has its message item, with empty text', async (t) => {
  const all = encode(emptyStream);
  t.same(
    all.map((frame) => frame.event).filter((name) => name.includes('delta')),
    [],
  );
  t.same(all.at(-1)!.data.response.output[0].content, [{ type: 'output_text', text: '', annotations: [] }]);
  t.same(body(emptyStream).output, all.at(-1)!.data.response.output);
});

t.test(
  'an error after the first byte is an error event whose data the SDKs raise, then response.failed with the response so far',
  async (t) => {
    for (const wire of ['spec', 'openai'] as const) {
      const encoder = new ResponsesStreamEncoder(context(wire));
      const written = framesOf((out) => {
        encoder.start(out);
        encoder.event(textStream[1]!, out);
        encoder.error(new GatewayError('GW_ERR_UPSTREAM_STREAM_CUT', 'The model server closed the stream.'), out);
      });
      const [error, failed] = parsed(written).slice(-2);
      t.equal(error!.event, 'error');
      t.same(error!.data, {
        type: 'error',
        code: 'upstream_stream_cut',
        message: 'The model server closed the stream.',
        param: null,
        error: {
          message: 'The model server closed the stream.',
          type: 'server_error',
          code: 'upstream_stream_cut',
          param: null,
        },
        sequence_number: 4,
      });
      t.equal(failed!.event, 'response.failed');
      t.match(failed!.data, {
        sequence_number: 5,
        response: {
          id: 'resp_gw1',
          status: 'failed',
          completed_at: null,
          error: { code: 'upstream_stream_cut', message: 'The model server closed the stream.' },
          output: [{ type: 'message', id: 'msg_gw1', status: 'incomplete', content: [{ text: 'Hello' }] }],
        },
      });
    }
  },
);

t.test("the body: the spec's fields, created_at, output[] and usage; the request echoed as OpenAI does", async (t) => {
  const whole = encodeResponsesBody(
    {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'Qwen/Qwen3-8B',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      usage: { ...USAGE, prompt_tokens_details: { cached_tokens: 8 } },
    },
    context('spec', { instructions: 'Be brief.', max_output_tokens: 50, temperature: 0.5 }),
  ) as Event;
  t.match(whole, {
    id: 'resp_gw1',
    object: 'response',
    created: 100,
    model: 'qwen3-8b',
    output_text: 'Hi',
    status: 'completed',
    finish_reason: 'stop',
    created_at: 100,
    instructions: 'Be brief.',
    max_output_tokens: 50,
    temperature: 0.5,
    store: false,
    error: null,
    incomplete_details: null,
  });
  t.same(whole.usage, {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 8 },
    output_tokens: 3,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  });
  t.same(Object.keys(whole).slice(0, 7), [
    'id',
    'object',
    'created',
    'model',
    'output_text',
    'status',
    'finish_reason',
  ]);
});
