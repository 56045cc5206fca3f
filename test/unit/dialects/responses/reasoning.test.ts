// The responses dialect's reasoning items: streamed with their events, and in the body, with the same ids.
import t from 'tap';
import { encodeResponsesBody } from '../../../../dialects/responses/encode-body.js';
import { ResponsesStreamEncoder } from '../../../../dialects/responses/encode-stream.js';
import type { ResponseContext } from '../../../../dialects/responses/response-object.js';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { WireProfile } from '../../../../core/dialect.js';
import { chunk, USAGE, type ChunkEvent } from '../../../fixtures/chunks.js';
import { encodeAll } from '../../../kit/frames.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed wire JSON, read deep and loose
type Event = Record<string, any>;

const context = (wire: WireProfile): ResponseContext => ({
  id: 'gw1',
  created: 100,
  modelId: 'qwen3-8b',
  wire,
  request: { model: 'qwen3-8b', input: 'x' },
});

/** Qwen3 through vLLM's reasoning parser: reasoning, then text (the field under either of its names). */
const thoughtThenText: ChunkEvent[] = [
  chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]),
  chunk([{ index: 0, delta: { reasoning_content: '\nLet me' } }]),
  chunk([{ index: 0, delta: { reasoning: ' greet.\n' } }]),
  chunk([{ index: 0, delta: { content: 'Hello!' }, finish_reason: 'stop' }]),
  chunk([], USAGE),
];

/** Reasoning, then a tool call. */
const thoughtThenCall: ChunkEvent[] = [
  chunk([{ index: 0, delta: { reasoning_content: 'Weather first.' } }]),
  chunk([
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index: 0,
            id: 'call_a',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city": "Oslo"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ]),
  chunk([], USAGE),
];

function encode(events: ChunkEvent[], wire: WireProfile): Array<{ event: string; data: Event }> {
  return encodeAll(new ResponsesStreamEncoder(context(wire)), events).map((frame) => ({
    event: frame.event!,
    data: JSON.parse(frame.data) as Event,
  }));
}

function body(events: ChunkEvent[]): Event {
  const accumulator = new CompletionAccumulator();
  for (const event of events) accumulator.add(event.chunk);
  return encodeResponsesBody(accumulator.result(), context('openai')) as Event;
}

for (const wire of ['spec', 'openai'] as const) {
  t.test(
    `${wire}: reasoning streams as a reasoning item with OpenAI's reasoning_text events, before the message`,
    async (t) => {
      const frames = encode(thoughtThenText, wire);
      t.same(
        frames.map((frame) => frame.event),
        [
          'response.created',
          'response.output_item.added',
          'response.content_part.added',
          'response.reasoning_text.delta',
          'response.reasoning_text.delta',
          'response.reasoning_text.done',
          'response.content_part.done',
          'response.output_item.done',
          'response.output_item.added',
          'response.content_part.added',
          'response.output_text.delta',
          'response.output_text.done',
          'response.content_part.done',
          'response.output_item.done',
          'response.completed',
        ],
      );
      const reasoningEvents = frames.filter(
        (frame) => frame.data.item_id === 'rs_gw1_0' || frame.data.item?.id === 'rs_gw1_0',
      );
      t.same(reasoningEvents[0]?.data.item, { type: 'reasoning', id: 'rs_gw1_0', summary: [], content: [] });
      t.same(reasoningEvents[1]?.data.part, { type: 'reasoning_text', text: '' });
      t.same(
        reasoningEvents
          .filter((frame) => frame.event === 'response.reasoning_text.delta')
          .map((frame) => frame.data.delta),
        ['\nLet me', ' greet.\n'],
      );
      t.equal(reasoningEvents[4]?.data.text, '\nLet me greet.\n');
      const item = {
        type: 'reasoning',
        id: 'rs_gw1_0',
        summary: [],
        content: [{ type: 'reasoning_text', text: '\nLet me greet.\n' }],
      };
      t.same(reasoningEvents[6]?.data.item, item);
      const completed = frames.at(-1)!.data.response;
      t.same(completed.output[0], item);
      t.equal(completed.output[1].type, 'message');
      t.equal(completed.output[1].content[0].text, 'Hello!');
      if (wire === 'spec') t.equal(completed.output_text, 'Hello!', 'reasoning is not output text');
    },
  );
}

t.test('reasoning then a tool call: the reasoning item closes before the function_call item opens', async (t) => {
  const frames = encode(thoughtThenCall, 'openai');
  const items = frames
    .filter((frame) => frame.event.startsWith('response.output_item.'))
    .map((f) => [f.event, f.data.item.type]);
  t.same(items, [
    ['response.output_item.added', 'reasoning'],
    ['response.output_item.done', 'reasoning'],
    ['response.output_item.added', 'function_call'],
    ['response.output_item.done', 'function_call'],
  ]);
});

t.test('the body has the same items with the same ids as the stream', async (t) => {
  for (const events of [thoughtThenText, thoughtThenCall]) {
    const streamed = encode(events, 'openai').at(-1)!.data.response.output;
    t.same(body(events).output, streamed);
  }
});
