// I9 (shared/research/real-upstream-llama.md): llama-server's tool-call ids are 32 random characters, and
// they reached the clients as they were (Anthropic tool_use.id, chat tool_calls[].id). Each dialect now
// shows its own form (toolu_…, call_…), and the server reads its own id when the client sends the turn back.
import t from 'tap';
import { startScriptedStack } from '../helpers/scripted-stack.js';
import { readSse } from '../kit/sse-reader.js';
import { llamaBody, llamaChunk, llamaUsageChunk } from '../fakes/scripted-upstream.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SERVER_ID = 'A73N0hNHIXn6DhBAtXswnuDh40Ehbkk0';
const PARAMETERS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** The tiny Qwen3's tool call as llama-server streams it, its arguments in the pieces it sends. */
const CALL = [
  llamaChunk({ role: 'assistant', content: null }),
  llamaChunk({ tool_calls: [{ index: 0, id: SERVER_ID, type: 'function', function: { name: 'get_weather' } }] }),
  ...['{', '"', 'city', '":"', 'Paris', '"}'].map((piece) =>
    llamaChunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
  ),
  llamaChunk({}, 'tool_calls'),
  llamaUsageChunk(148, 20),
];
const ANSWER = [
  llamaChunk({ role: 'assistant', content: null }),
  llamaChunk({ content: 'Sunny.' }),
  llamaChunk({}, 'stop'),
  llamaUsageChunk(170, 3),
];

t.test('I9 regression: each dialect shows its own id form, and the server gets its own id back', async (t) => {
  const { stack, upstream } = await startScriptedStack(
    t,
    (body) => {
      const answered = (body.messages as Json[]).at(-1)!.role === 'tool';
      if (body.stream === true) return { chunks: answered ? ANSWER : CALL };
      const message = answered
        ? { content: 'Sunny.' }
        : {
            content: null,
            tool_calls: [
              { type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' }, id: SERVER_ID },
            ],
          };
      return { body: llamaBody(message, answered ? 'stop' : 'tool_calls', [148, 20]) };
    },
    'dialects:\n  responses:\n    function_tools: true\n',
  );
  const post = async (path: string, body: Json): Promise<string> => {
    const response = await fetch(`${stack.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-8b', ...body }),
    });
    t.equal(response.status, 200, path);
    return response.text();
  };
  /** The ids the server got for the call and its result in the last request. */
  const received = (): string[] => {
    const messages = upstream.bodies.at(-1)!.messages as Json[];
    return messages.flatMap((message) =>
      message.role === 'tool' ? [message.tool_call_id] : (message.tool_calls ?? []).map((call: Json) => call.id),
    );
  };
  const events = (text: string): Json[] => readSse(text).map((frame) => JSON.parse(frame.data) as Json);

  for (const stream of [false, true]) {
    // Messages.
    const ask = { max_tokens: 100, tools: [{ name: 'get_weather', input_schema: PARAMETERS }], stream };
    const user = { role: 'user', content: 'Weather in Paris?' };
    const first = await post('/v1/messages', { ...ask, messages: [user] });
    const use = stream
      ? events(first).find((event) => event.type === 'content_block_start' && event.content_block.type === 'tool_use')!
          .content_block
      : (JSON.parse(first) as Json).content.find((block: Json) => block.type === 'tool_use');
    t.equal(use.id, `toolu_${SERVER_ID}`, `messages (stream ${stream})`);
    await post('/v1/messages', {
      ...ask,
      messages: [
        user,
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: use.id, name: 'get_weather', input: { city: 'Paris' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
      ],
    });
    t.same(received(), [SERVER_ID, SERVER_ID]);

    // Chat.
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: PARAMETERS } }];
    const chatFirst = await post('/v1/chat/completions', { tools, stream, messages: [user] });
    const call = stream
      ? events(chatFirst)
          .flatMap((event) => event.choices ?? [])
          .flatMap((choice: Json) => choice.delta?.tool_calls ?? [])
          .find((fragment: Json) => fragment.id !== undefined)
      : (JSON.parse(chatFirst) as Json).choices[0].message.tool_calls[0];
    t.equal(call.id, `call_${SERVER_ID}`, `chat (stream ${stream})`);
    await post('/v1/chat/completions', {
      tools,
      messages: [
        user,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: call.id, content: 'sunny' },
      ],
    });
    t.same(received(), [SERVER_ID, SERVER_ID]);

    // Responses.
    const functions = [{ type: 'function', name: 'get_weather', parameters: PARAMETERS }];
    const responseFirst = await post('/v1/responses', { tools: functions, stream, input: 'Weather in Paris?' });
    const item = stream
      ? events(responseFirst).find(
          (event) => event.type === 'response.output_item.done' && event.item.type === 'function_call',
        )!.item
      : (JSON.parse(responseFirst) as Json).output.find((output: Json) => output.type === 'function_call');
    t.equal(item.call_id, `call_${SERVER_ID}`, `responses (stream ${stream})`);
    await post('/v1/responses', {
      tools: functions,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        item,
        { type: 'function_call_output', call_id: item.call_id, output: 'sunny' },
      ],
    });
    t.same(received(), [SERVER_ID, SERVER_ID]);
  }
});
