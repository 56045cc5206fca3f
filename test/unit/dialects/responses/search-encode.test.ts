// The gateway's search events in the message and responses encoders: the stream's blocks and items, in the
// order the body has them (a client that accumulates the stream gets the body).
import t from 'tap';
import { encodeMessagesBody } from '../../../../dialects/messages/encode-body.js';
import { MessagesStreamEncoder } from '../../../../dialects/messages/encode-stream.js';
import { encodeResponsesBody } from '../../../../dialects/responses/encode-body.js';
import { ResponsesStreamEncoder } from '../../../../dialects/responses/encode-stream.js';
import type { ResponseContext } from '../../../../dialects/responses/response-object.js';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { CanonicalEvent, ChatUsage, Citation } from '../../../../core/canonical.js';
import { encodeAll } from '../../../kit/frames.js';
import type { StreamEncoder } from '../../../../core/dialect.js';
import { deltaEvent, usageEvent } from '../../../kit/chunks.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed wire JSON, read deep and loose; t.same and t.match check it
type Data = Record<string, any>;
interface Frame {
  event: string;
  data: Data;
}

const USAGE: ChatUsage = { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320, web_search_requests: 1 };
const source = (n: number) => ({
  url: `https://s${n}.example/`,
  title: `Source ${n}`,
  page_age: null,
  encrypted_content: `sealed-${n}`,
});
const cite = (n: number): Citation => ({
  url: `https://s${n}.example/`,
  title: `Source ${n}`,
  cited_text: `Text ${n}.`,
  encrypted_index: `index-${n}`,
});

/** Text, a search and its results, then a cited answer "Sunny [1]. Mild [2]." and the total usage. */
const searched: CanonicalEvent[] = [
  deltaEvent({ role: 'assistant', content: '' }),
  { type: 'search_call', id: 'x_1', query: 'lisbon weather' },
  { type: 'search_result', id: 'x_1', results: [source(1), source(2)] },
  deltaEvent({ content: 'Sunny ' }),
  deltaEvent({ content: '[1]' }),
  { type: 'citation', marker: '[1]', citation: cite(1) },
  deltaEvent({ content: '. Mild [2]' }),
  { type: 'citation', marker: '[2]', citation: cite(2) },
  deltaEvent({ content: '.' }, { finish_reason: 'stop' }),
  usageEvent(USAGE),
];

function frames(encoder: StreamEncoder, events: CanonicalEvent[]): Frame[] {
  return encodeAll(encoder, events).map((frame) => ({ event: frame.event!, data: JSON.parse(frame.data) as Data }));
}

function accumulate(events: CanonicalEvent[]) {
  const accumulator = new CompletionAccumulator();
  for (const event of events) accumulator.addEvent(event);
  return accumulator.result();
}

/** What @anthropic-ai/sdk's MessageStream makes of the events (its accumulateMessage, reduced). */
function snapshot(stream: Frame[]): Data {
  let message: Data = {};
  for (const { data } of stream) {
    if (data.type === 'message_start') message = structuredClone(data.message);
    else if (data.type === 'content_block_start') message.content.push(structuredClone(data.content_block));
    else if (data.type === 'content_block_delta') {
      const block = message.content[data.index];
      if (data.delta.type === 'text_delta') block.text += data.delta.text;
      else if (data.delta.type === 'citations_delta')
        block.citations = [...(block.citations ?? []), data.delta.citation];
      else if (data.delta.type === 'input_json_delta') block.input = JSON.parse(data.delta.partial_json);
    } else if (data.type === 'message_delta')
      Object.assign(message, data.delta, { usage: { ...message.usage, ...data.usage } });
  }
  return message;
}

t.test(
  'message dialect: server_tool_use and web_search_tool_result blocks, text split after each citation, the count in usage',
  async (t) => {
    const encoder = new MessagesStreamEncoder({
      id: 'msg_1',
      modelId: 'qwen3-8b',
      stopSequences: [],
      sign: () => 'sig',
    });
    const stream = frames(encoder, searched);
    const body = encodeMessagesBody(accumulate(searched), 'msg_1', 'qwen3-8b', [], () => 'sig') as Data;
    t.same(body.content, [
      { type: 'server_tool_use', id: 'srvtoolu_x_1', name: 'web_search', input: { query: 'lisbon weather' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_x_1',
        content: [
          { type: 'web_search_result', ...source(1) },
          { type: 'web_search_result', ...source(2) },
        ],
      },
      { type: 'text', text: 'Sunny [1]', citations: [{ type: 'web_search_result_location', ...cite(1) }] },
      { type: 'text', text: '. Mild [2]', citations: [{ type: 'web_search_result_location', ...cite(2) }] },
      { type: 'text', text: '.' },
    ]);
    t.equal(body.stop_reason, 'end_turn');
    t.same(body.usage.server_tool_use, { web_search_requests: 1 });
    t.same(snapshot(stream).content, body.content, 'the stream accumulates to the body');
    t.same(
      stream.slice(1, 4).map(({ data }) => [data.type, data.content_block?.type ?? data.delta?.type]),
      [
        ['content_block_start', 'server_tool_use'],
        ['content_block_delta', 'input_json_delta'],
        ['content_block_stop', undefined],
      ],
    );
    t.same(stream[1]!.data.content_block.input, {}, 'the block starts with an empty input');
    t.equal(stream.filter(({ data }) => data.delta?.type === 'citations_delta').length, 2);
    t.same(stream.at(-2)!.data.usage.server_tool_use, { web_search_requests: 1 });
  },
);

t.test('message dialect: an errored search is a web_search_tool_result_error', async (t) => {
  const events: CanonicalEvent[] = [
    { type: 'search_call', id: 'x_1', query: 'q' },
    { type: 'search_result', id: 'x_1', results: [], error_code: 'max_uses_exceeded' },
    deltaEvent({ content: 'Nothing.' }, { finish_reason: 'stop' }),
  ];
  const body = encodeMessagesBody(accumulate(events), 'msg_1', 'qwen3-8b', [], () => 'sig') as Data;
  t.same(body.content[1], {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_x_1',
    content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
  });
  const encoder = new MessagesStreamEncoder({ id: 'msg_1', modelId: 'qwen3-8b', stopSequences: [], sign: () => 'sig' });
  t.same(snapshot(frames(encoder, events)).content, body.content);
});

const context = (wire: 'spec' | 'openai'): ResponseContext => ({
  id: 'gw1',
  created: 100,
  modelId: 'qwen3-8b',
  wire,
  request: { model: 'qwen3-8b', input: 'x' },
});

t.test(
  'responses dialect: a web_search_call item before the message, url_citation annotations on the markers, the count',
  async (t) => {
    for (const wire of ['spec', 'openai'] as const) {
      const encoder = new ResponsesStreamEncoder(context(wire));
      const stream = frames(encoder, searched);
      const body = encodeResponsesBody(accumulate(searched), context(wire)) as Data;
      const text = 'Sunny [1]. Mild [2].';
      t.same(
        body.output,
        [
          {
            type: 'web_search_call',
            id: 'ws_x_1',
            status: 'completed',
            action: { type: 'search', query: 'lisbon weather' },
          },
          {
            type: 'message',
            id: 'msg_gw1',
            status: 'completed',
            role: 'assistant',
            content: [
              {
                type: 'output_text',
                text,
                annotations: [
                  { type: 'url_citation', start_index: 6, end_index: 9, url: 'https://s1.example/', title: 'Source 1' },
                  {
                    type: 'url_citation',
                    start_index: 16,
                    end_index: 19,
                    url: 'https://s2.example/',
                    title: 'Source 2',
                  },
                ],
              },
            ],
          },
        ],
        wire,
      );
      t.equal(body.usage.web_search_requests, 1);
      t.same(stream.at(-1)!.data.response.output, body.output, "response.completed has the body's output");
      t.same(stream.map(({ event }) => event).slice(0, 7), [
        'response.created',
        'response.output_item.added',
        'response.web_search_call.in_progress',
        'response.web_search_call.searching',
        'response.web_search_call.completed',
        'response.output_item.done',
        'response.output_item.added',
      ]);
      const added = stream
        .filter(({ event }) => event === 'response.output_text.annotation.added')
        .map(({ data }) => [
          data.item_id,
          data.output_index,
          data.content_index,
          data.annotation_index,
          data.annotation.start_index,
        ]);
      t.same(added, [
        ['msg_gw1', 1, 0, 0, 6],
        ['msg_gw1', 1, 0, 1, 16],
      ]);
    }
  },
);

t.test('responses dialect: an errored search item is failed; text before a search is its own message', async (t) => {
  const events: CanonicalEvent[] = [
    deltaEvent({ content: 'Let me look.' }),
    { type: 'search_call', id: 'x_1', query: 'q' },
    { type: 'search_result', id: 'x_1', results: [], error_code: 'unavailable' },
    deltaEvent({ content: 'No luck.' }, { finish_reason: 'stop' }),
  ];
  const encoder = new ResponsesStreamEncoder(context('openai'));
  const stream = frames(encoder, events);
  const body = encodeResponsesBody(accumulate(events), context('openai')) as Data;
  t.same(
    body.output.map((item: Data) => [item.type, item.id, item.status]),
    [
      ['message', 'msg_gw1', 'completed'],
      ['web_search_call', 'ws_x_1', 'failed'],
      ['message', 'msg_gw1_1', 'completed'],
    ],
  );
  t.same(stream.at(-1)!.data.response.output, body.output);
});
