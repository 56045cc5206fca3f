// Tool-call ids in each dialect's own form, mapped back for the server on the next turn (core/tool-call-ids.ts;
// I9 of shared/research/real-upstream-llama.md: llama-server's random ids passed through as they were).
import t from 'tap';
import { createDialects } from '../../../dialects/registry.js';
import type { ChatCompletion, ChatMessage, CanonicalEvent } from '../../../core/canonical.js';
import type { EncodeContext } from '../../../core/dialect.js';
import type { DialectName } from '../../../dialects/registry.js';
import { ThinkingSigner } from '../../../core/thinking-signer.js';
import { CALL_PREFIX, clientToolCallId, TOOL_USE_PREFIX, upstreamToolCallId } from '../../../core/tool-call-ids.js';
import { chunk, USAGE } from '../../fixtures/chunks.js';
import { encodeAll } from '../../kit/frames.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MODEL = 'qwen3-8b';
const DIALECTS: DialectName[] = ['chat', 'messages', 'responses'];
const dialects = createDialects({
  modelId: MODEL,
  modelAliases: [],
  contextTokens: 32768,
  messagesMaxTokens: 8000,
  responsesFunctionTools: true,
});
const context: EncodeContext = {
  id: 'abc123',
  created: 1,
  wire: 'spec',
  thinkingSigner: new ThinkingSigner(Buffer.alloc(32, 1)),
  client: undefined,
  limits: undefined,
};
const PARAMETERS = { type: 'object', properties: { city: { type: 'string' } } };
const LLAMA_ID = 'A73N0hNHIXn6DhBAtXswnuDh40Ehbkk0';
/** The shape Anthropic's API checks tool_use ids against. */
const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

/** A request of the dialect that offers the tool (its echo is what the encoders get). */
function request(dialect: DialectName, stream: boolean): Json {
  switch (dialect) {
    case 'chat':
      return {
        model: MODEL,
        stream,
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: PARAMETERS } }],
      };
    case 'messages':
      return {
        model: MODEL,
        stream,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [{ name: 'get_weather', input_schema: PARAMETERS }],
      };
    case 'responses':
      return {
        model: MODEL,
        stream,
        input: 'weather?',
        tools: [{ type: 'function', name: 'get_weather', parameters: PARAMETERS }],
      };
  }
}

/** The ids the client sees for calls with these upstream ids, in a body or a stream. */
function clientIds(dialect: DialectName, upstreamIds: string[], stream: boolean): string[] {
  const { echo } = dialects[dialect].decode(request(dialect, stream));
  if (!stream) {
    const completion: ChatCompletion = {
      id: 'up',
      object: 'chat.completion',
      created: 1,
      model: MODEL,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: upstreamIds.map((id) => ({
              id,
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            })),
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: USAGE,
    };
    const body = dialects[dialect].encodeBody(completion, context, echo) as Json;
    if (dialect === 'chat') return body.choices[0].message.tool_calls.map((call: Json) => call.id);
    if (dialect === 'messages') return body.content.map((block: Json) => block.id);
    return body.output.filter((item: Json) => item.type === 'function_call').map((item: Json) => item.call_id);
  }
  const events: CanonicalEvent[] = [];
  upstreamIds.forEach((id, index) => {
    const first = { index, id, type: 'function' as const, function: { name: 'get_weather', arguments: '' } };
    events.push(chunk([{ index: 0, delta: { tool_calls: [first] }, finish_reason: null }]));
    const args = { index, function: { arguments: '{"city":"Paris"}' } };
    events.push(chunk([{ index: 0, delta: { tool_calls: [args] }, finish_reason: null }]));
  });
  events.push(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]), chunk([], USAGE));
  const encoder = dialects[dialect].streamEncoder(context, echo);
  const frames = encodeAll(encoder, events)
    .filter((frame) => frame.data !== '[DONE]')
    .map((frame) => JSON.parse(frame.data) as Json);
  if (dialect === 'chat')
    return frames.flatMap((frame) =>
      (frame.choices ?? []).flatMap((choice: Json) =>
        (choice.delta?.tool_calls ?? []).filter((call: Json) => call.id !== undefined).map((call: Json) => call.id),
      ),
    );
  if (dialect === 'messages')
    return frames
      .filter((frame) => frame.type === 'content_block_start' && frame.content_block.type === 'tool_use')
      .map((frame) => frame.content_block.id);
  return frames
    .filter((frame) => frame.type === 'response.output_item.added' && frame.item.type === 'function_call')
    .map((frame) => frame.item.call_id);
}

/** The ids the upstream gets when the client sends back a turn that called `id` and the tool's result for it. */
function upstreamIds(dialect: DialectName, id: string): { calls: string[]; results: string[] } {
  const base = request(dialect, false);
  const history: Json =
    dialect === 'chat'
      ? {
          ...base,
          messages: [
            ...base.messages,
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
            },
            { role: 'tool', tool_call_id: id, content: 'sunny' },
          ],
        }
      : dialect === 'messages'
        ? {
            ...base,
            messages: [
              ...base.messages,
              { role: 'assistant', content: [{ type: 'tool_use', id, name: 'get_weather', input: { city: 'Paris' } }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'sunny' }] },
            ],
          }
        : {
            ...base,
            input: [
              { role: 'user', content: 'weather?' },
              { type: 'function_call', call_id: id, name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'function_call_output', call_id: id, output: 'sunny' },
            ],
          };
  const messages: ChatMessage[] = dialects[dialect].decode(history).request.messages;
  return {
    calls: messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
    ),
    results: messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])),
  };
}

const FORM: Record<DialectName, string> = { chat: 'call_', messages: 'toolu_', responses: 'call_' };

t.test("each dialect shows the server's id in its own form, streamed and not", async (t) => {
  for (const dialect of DIALECTS)
    for (const stream of [false, true])
      t.same(clientIds(dialect, [LLAMA_ID], stream), [FORM[dialect] + LLAMA_ID], `${dialect}, stream ${stream}`);
});

t.test('an id that already has the dialect’s prefix is shown as it is', async (t) => {
  t.same(clientIds('chat', ['call_8f2a'], false), ['call_8f2a']);
  t.same(clientIds('responses', ['call_8f2a'], true), ['call_8f2a']);
  t.same(clientIds('messages', ['toolu_01Ab'], true), ['toolu_01Ab']);
  t.same(
    clientIds('messages', ['call_8f2a'], false),
    ['toolu_call_8f2a'],
    'another dialect’s prefix is only part of the id',
  );
});

t.test('characters outside [A-Za-z0-9_-] are escaped, so the SDKs’ and Anthropic’s id checks pass', async (t) => {
  const ids = ['functions.get_weather:0', 'call id/1', 'tool é'];
  for (const dialect of DIALECTS) {
    const shown = clientIds(dialect, ids, false);
    t.ok(
      shown.every((id) => ANTHROPIC_ID.test(id)),
      `${dialect}: ${shown.join(', ')}`,
    );
  }
  t.same(clientIds('messages', ['functions.get_weather:0'], true), ['toolu_functions-x2e-get_weather-x3a-0']);
});

t.test('a call the server gave no id gets one, in the dialect’s form and unique in the response', async (t) => {
  for (const dialect of DIALECTS)
    for (const stream of [false, true]) {
      const shown = clientIds(dialect, ['', ''], stream);
      t.equal(shown.length, 2);
      t.not(shown[0], shown[1], `${dialect}, stream ${stream}: ${shown.join(', ')}`);
      t.ok(
        shown.every((id) => id.startsWith(FORM[dialect]) && id.length > FORM[dialect].length && ANTHROPIC_ID.test(id)),
      );
    }
});

t.test('round trip: a client that sends back the id it got → the server gets its own id again', async (t) => {
  const serverIds = [LLAMA_ID, 'chatcmpl-tool-5b1e9a3c', 'functions.get_weather:0', 'Xk3p9QaZ1', 'a-x2e-b', 'tool é'];
  for (const dialect of DIALECTS)
    for (const stream of [false, true])
      for (const id of serverIds) {
        const [shown] = clientIds(dialect, [id], stream);
        t.same(upstreamIds(dialect, shown!), { calls: [id], results: [id] }, `${dialect}, stream ${stream}: ${id}`);
      }
});

t.test(
  'ids from other sources survive: a client’s own history reaches the server with each call and result paired',
  async (t) => {
    // Claude Code's history from Anthropic's API, OpenAI's, and ids in no known form.
    const cases: Array<[DialectName, string, string]> = [
      ['messages', 'toolu_01A09q90qw90lq917835lq9', '01A09q90qw90lq917835lq9'],
      ['chat', 'call_abc123XYZ', 'abc123XYZ'],
      ['responses', 'call_abc123XYZ', 'abc123XYZ'],
      ['messages', 'my-tool-call.1', 'my-tool-call.1'],
      ['chat', 'fc_1', 'fc_1'],
      ['responses', 'toolu_01X', 'toolu_01X'],
    ];
    for (const [dialect, id, upstream] of cases)
      t.same(upstreamIds(dialect, id), { calls: [upstream], results: [upstream] }, `${dialect}: ${id}`);
  },
);

t.test('the mapping is one-to-one for every id without the prefix', async (t) => {
  const alphabet = ['a', 'Z', '0', '_', '-', 'x', '.', ':', '/', ' ', 'é', '😀', '2', 'e'];
  let seed = 7;
  const random = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const failures: string[] = [];
  for (let i = 0; i < 2000; i++) {
    let id = '';
    const length = 1 + Math.floor(random() * 12);
    for (let j = 0; j < length; j++) id += alphabet[Math.floor(random() * alphabet.length)];
    for (const prefix of [TOOL_USE_PREFIX, CALL_PREFIX]) {
      if (id.startsWith(prefix)) continue;
      const shown = clientToolCallId(prefix, id, 'gen');
      if (upstreamToolCallId(prefix, shown) !== id || !ANTHROPIC_ID.test(shown)) failures.push(`${prefix}${id}`);
    }
  }
  t.same(failures, []);
});
