// Codex's remote compaction on /v1/responses (dialects/responses/compaction.ts): the `compaction_trigger` input
// item asks for a summary, the answer is one `compaction` item, and that item sent back reaches the model as the
// summary.
import t from 'tap';
import {
  decodeSummary,
  encodeSummary,
  SUMMARY_PREFIX,
  SUMMARY_REQUEST,
} from '../../../../dialects/responses/compaction.js';
import { createResponsesDecoder } from '../../../../dialects/responses/decode.js';
import { encodeResponsesBody } from '../../../../dialects/responses/encode-body.js';
import { ResponsesStreamEncoder } from '../../../../dialects/responses/encode-stream.js';
import type { ResponseContext } from '../../../../dialects/responses/response-object.js';
import { CompletionAccumulator } from '../../../../proxy/stream/accumulate.js';
import type { ChatRequest } from '../../../../core/canonical.js';
import type { WireProfile } from '../../../../core/dialect.js';
import { GatewayError } from '../../../../core/errors.js';
import { chunk, textStream, USAGE, type ChunkEvent } from '../../../fixtures/chunks.js';
import { encodeAll } from '../../../kit/frames.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed wire JSON, read loose; t.same and t.match check it
type Event = Record<string, any>;

const MODEL = 'qwen3-8b';
const decode = createResponsesDecoder({ modelId: MODEL, functionTools: true, maxOutputTokens: 32768 });
const request = (body: Record<string, unknown>): ChatRequest => decode({ model: MODEL, ...body }).request;
const SHELL = { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: {} } };
const TRIGGER = { type: 'compaction_trigger' as const };

function rejection(body: Record<string, unknown>): GatewayError {
  try {
    request(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('the decoder accepted the body');
}

const context = (wire: WireProfile): ResponseContext => ({
  id: 'gw1',
  created: 100,
  modelId: MODEL,
  wire,
  request: { model: MODEL, input: [{ role: 'user', content: 'x' }, TRIGGER] },
  compaction: true,
});

function stream(events: ChunkEvent[], wire: WireProfile): Array<{ event: string; data: Event }> {
  return encodeAll(new ResponsesStreamEncoder(context(wire)), events).map((frame) => ({
    event: frame.event!,
    data: JSON.parse(frame.data) as Event,
  }));
}

t.test('a compaction_trigger as the last input item asks the model for a summary of the conversation', async (t) => {
  const chat = request({
    instructions: 'Be a coding agent.',
    input: [{ role: 'user', content: 'Fix the build.' }, { role: 'assistant', content: 'Done.' }, TRIGGER],
  });
  t.same(chat.messages, [
    { role: 'system', content: 'Be a coding agent.' },
    { role: 'user', content: 'Fix the build.' },
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: SUMMARY_REQUEST },
  ]);
});

t.test('a compaction request offers the model none of the tools, so the answer is the summary text', async (t) => {
  const chat = request({
    input: [{ role: 'user', content: 'Fix the build.' }, TRIGGER],
    tools: [SHELL, { type: 'web_search' }],
    tool_choice: 'auto',
    parallel_tool_calls: true,
  });
  t.equal(chat.tools, undefined);
  t.equal(chat.tool_choice, undefined);
  t.equal(chat.parallel_tool_calls, undefined);
  t.equal(chat.gateway?.web_search, undefined);
  t.ok(
    request({ input: [{ role: 'user', content: 'Fix the build.' }], tools: [SHELL] }).tools,
    'other requests keep them',
  );
});

t.test(
  'a compaction item sent back reaches the model as its summary, in a user message where the item was',
  async (t) => {
    const chat = request({
      input: [
        { role: 'user', content: 'Fix the build.' },
        { type: 'compaction', id: 'cmp_gw1', encrypted_content: encodeSummary('The build is fixed; tests remain.') },
        { role: 'user', content: 'Run the tests.' },
      ],
    });
    t.same(chat.messages, [
      { role: 'user', content: 'Fix the build.' },
      { role: 'user', content: `${SUMMARY_PREFIX}The build is fixed; tests remain.` },
      { role: 'user', content: 'Run the tests.' },
    ]);
  },
);

t.test('a compaction_trigger anywhere but last is a 400 naming it', async (t) => {
  const error = rejection({ input: [TRIGGER, { role: 'user', content: 'Hi' }] });
  t.equal(error.status, 400);
  t.equal(error.param, 'input[0].type');
  t.match(error.message, /'compaction_trigger' item must be the last input item/);
});

t.test('a compaction item the gateway did not make is a 400 naming its encrypted_content', async (t) => {
  const error = rejection({
    input: [
      { type: 'compaction', encrypted_content: 'gAAAAABpM0Yj-opaque=' },
      { role: 'user', content: 'Hi' },
    ],
  });
  t.equal(error.status, 400);
  t.equal(error.param, 'input[0].encrypted_content');
  t.match(error.message, /not made by this gateway/);
});

t.test('a compaction item without encrypted_content is a 400', async (t) => {
  const error = rejection({ input: [{ type: 'compaction' }, { role: 'user', content: 'Hi' }] });
  t.equal(error.status, 400);
  t.match(error.param, /^input\[0\]/);
});

t.test('a summary survives the round trip through encrypted_content, whatever its characters', async (t) => {
  for (const summary of ['', 'plain', 'ünïcødé ✓ 中文\n"quotes" and \u0000'])
    t.equal(decodeSummary(encodeSummary(summary), 'p'), summary);
});

for (const wire of ['spec', 'openai'] as const) {
  t.test(
    `[${wire}] the streamed answer to a compaction request is one compaction item, added and done, and no message`,
    async (t) => {
      const all = stream(textStream, wire);
      t.same(
        all.map((frame) => frame.event),
        ['response.created', 'response.output_item.added', 'response.output_item.done', 'response.completed'],
      );
      const item = { type: 'compaction', id: 'cmp_gw1', encrypted_content: encodeSummary('Hello world') };
      t.same(all[2]!.data.item, item, 'the done item carries the summary');
      t.same(all[3]!.data.response.output, [item], 'completed lists it as the only output');
      t.same(all[3]!.data.response.usage.input_tokens, USAGE.prompt_tokens, 'with the usage');
      all.forEach((frame, index) => t.equal(frame.data.sequence_number, index));
    },
  );
}

t.test('a tool call the upstream makes on a compaction request does not reach the client', async (t) => {
  const withCall: ChunkEvent[] = [
    chunk([{ index: 0, delta: { content: 'Summary.' } }]),
    chunk([
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }] },
        finish_reason: 'tool_calls',
      },
    ]),
    chunk([], USAGE),
  ];
  const output = stream(withCall, 'openai').at(-1)!.data.response.output as Event[];
  t.same(
    output.map((item) => item.type),
    ['compaction'],
  );
});

t.test('the non-streamed answer to a compaction request has the one compaction item as its output', async (t) => {
  const accumulator = new CompletionAccumulator();
  for (const event of textStream) accumulator.add(event.chunk);
  const body = encodeResponsesBody(accumulator.result(), context('openai')) as Event;
  t.same(body.output, [{ type: 'compaction', id: 'cmp_gw1', encrypted_content: encodeSummary('Hello world') }]);
  t.equal(body.status, 'completed');
});
