// The message dialect driven by the real @anthropic-ai/sdk (current major 1.x, which sends Bearer) and the 0.x major (x-api-key).
import Anthropic from '@anthropic-ai/sdk';
import AnthropicV0 from 'anthropic-v0';
import t from 'tap';
import { rejection } from '../helpers/rejection.js';
import { startStack, type Stack } from '../helpers/stack.js';

const MODEL = 'qwen3-8b';
const WEATHER = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

let stack: Stack;
t.before(async () => {
  stack = await startStack();
});
t.teardown(() => stack.close());

const client = (): Anthropic => new Anthropic({ apiKey: 'sk-test', baseURL: stack.gateway.url, maxRetries: 0 });

t.test('messages.create returns a message with the public model id, end_turn and full usage', async (t) => {
  const message = await client().messages.create({
    model: MODEL,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'echo: Bonjour le monde' }],
  });
  t.equal(message.type, 'message');
  t.equal(message.role, 'assistant');
  t.equal(message.model, MODEL);
  t.same(message.content, [{ type: 'text', text: 'Bonjour le monde' }]);
  t.equal(message.stop_reason, 'end_turn');
  t.equal(message.stop_sequence, null);
  t.ok(message.usage.input_tokens > 0);
  t.ok(message.usage.output_tokens > 0);
  t.equal(message.usage.cache_creation_input_tokens, 0);
  t.equal(typeof message.usage.cache_read_input_tokens, 'number');
});

t.test('max_tokens cuts the answer with stop_reason max_tokens', async (t) => {
  const message = await client().messages.create({
    model: MODEL,
    max_tokens: 3,
    messages: [{ role: 'user', content: 'Tell me a story.' }],
  });
  t.equal(message.stop_reason, 'max_tokens');
  t.equal(message.usage.output_tokens, 3);
});

t.test('a matched stop sequence gives stop_reason stop_sequence and the string', async (t) => {
  const message = await client().messages.create({
    model: MODEL,
    max_tokens: 50,
    stop_sequences: ['STOP'],
    messages: [{ role: 'user', content: 'echo: one two STOP three' }],
  });
  t.equal(message.stop_reason, 'stop_sequence');
  t.equal(message.stop_sequence, 'STOP');
  t.same(message.content, [{ type: 'text', text: 'one two ' }]);
});

t.test('messages.stream delivers the text, the events in order and the final message', async (t) => {
  const stream = client().messages.stream({
    model: MODEL,
    max_tokens: 100,
    messages: [{ role: 'user', content: 'echo: streamed reply' }],
  });
  const types: string[] = [];
  stream.on('streamEvent', (event) => types.push(event.type));
  const final = await stream.finalMessage();
  t.same(final.content, [{ type: 'text', text: 'streamed reply' }]);
  t.equal(final.stop_reason, 'end_turn');
  t.ok(final.usage.input_tokens > 0, 'message_start carried the input tokens');
  t.ok(final.usage.output_tokens > 0);
  t.equal(types[0], 'message_start');
  t.equal(types[1], 'content_block_start');
  t.equal(types.at(-2), 'message_delta');
  t.equal(types.at(-1), 'message_stop');
});

t.test(
  'system prompts as a string, as blocks with cache_control, and role system messages are all accepted',
  async (t) => {
    const message = await client().messages.create({
      model: MODEL,
      max_tokens: 20,
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'echo: ok' }] }],
    });
    t.same(message.content, [{ type: 'text', text: 'ok' }]);
  },
);

t.test('a tool round trip: tool_use, then tool_result, then the answer', async (t) => {
  const first = await client().messages.create({
    model: MODEL,
    max_tokens: 200,
    tools: [WEATHER],
    messages: [{ role: 'user', content: 'Use get_weather city=Paris' }],
  });
  t.equal(first.stop_reason, 'tool_use');
  const use = first.content.find((block) => block.type === 'tool_use');
  t.ok(use);
  if (use?.type !== 'tool_use') return;
  t.equal(use.name, 'get_weather');
  t.same(use.input, { city: 'Paris' });
  const second = await client().messages.create({
    model: MODEL,
    max_tokens: 200,
    tools: [WEATHER],
    messages: [
      { role: 'user', content: 'Use get_weather city=Paris' },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 C' }] },
    ],
  });
  t.equal(second.stop_reason, 'end_turn');
  t.match((second.content[0] as { text: string }).text, /Sunny, 21 C/);
});

t.test('streamed tool use arrives with its input whole (input_json_delta assembled)', async (t) => {
  const stream = client().messages.stream({
    model: MODEL,
    max_tokens: 200,
    tools: [WEATHER, { ...WEATHER, name: 'get_time' }],
    messages: [{ role: 'user', content: 'get_weather city=Oslo and get_time city=Oslo' }],
  });
  const final = await stream.finalMessage();
  t.equal(final.stop_reason, 'tool_use');
  const uses = final.content.filter((block) => block.type === 'tool_use');
  t.same(
    uses.map((use) => use.type === 'tool_use' && [use.name, use.input]),
    [
      ['get_weather', { city: 'Oslo' }],
      ['get_time', { city: 'Oslo' }],
    ],
  );
});

t.test("tool_choice as the spec's strings and as objects", async (t) => {
  for (const tool_choice of [{ type: 'any' as const }, { type: 'tool' as const, name: 'get_weather' }]) {
    const message = await client().messages.create({
      model: MODEL,
      max_tokens: 200,
      tools: [WEATHER],
      tool_choice,
      messages: [{ role: 'user', content: 'Weather please.' }],
    });
    t.equal(message.stop_reason, 'tool_use', JSON.stringify(tool_choice));
  }
  const none = await client().messages.create({
    model: MODEL,
    max_tokens: 20,
    tools: [WEATHER],
    tool_choice: { type: 'none' },
    messages: [{ role: 'user', content: 'echo: get_weather not called' }],
  });
  t.equal(none.stop_reason, 'end_turn');
  const raw = await fetch(`${stack.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: MODEL,
      max_tokens: 200,
      tools: [WEATHER],
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'Weather please.' }],
    }),
  });
  t.equal(((await raw.json()) as { stop_reason: string }).stop_reason, 'tool_use', "the spec's string 'required'");
});

t.test('replayed unsigned thinking blocks and tool_result with is_error are accepted', async (t) => {
  // A signature must be this gateway's (messages-thinking.test.ts); an unsigned block is accepted and kept out of the prompt.
  const message = await client().messages.create({
    model: MODEL,
    max_tokens: 20,
    tools: [WEATHER],
    messages: [
      { role: 'user', content: 'Use get_weather city=Rome' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should call the tool.', signature: '' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            is_error: true,
            content: [{ type: 'text', text: 'service down' }],
          },
        ],
      },
    ],
  });
  t.match((message.content[0] as { text: string }).text, /Error: service down/);
});

t.test('the 0.x SDK (x-api-key) creates and streams', async (t) => {
  const old = new AnthropicV0({ apiKey: 'sk-test', baseURL: stack.gateway.url, maxRetries: 0 });
  const message = await old.messages.create({
    model: MODEL,
    max_tokens: 50,
    messages: [{ role: 'user', content: 'echo: from 0.x' }],
  });
  t.same(message.content, [{ type: 'text', text: 'from 0.x' }]);
  const final = await old.messages
    .stream({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'echo: streamed by 0.x' }] })
    .finalMessage();
  t.same(final.content, [{ type: 'text', text: 'streamed by 0.x' }]);
});

t.test("errors are the SDK's error classes with the dialect's types", async (t) => {
  t.match(
    await rejection(
      client().messages.create({
        model: 'claude-sonnet-4',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    ),
    { status: 404, error: { type: 'error', error: { type: 'not_found_error' } } },
  );
  t.match(
    await rejection(
      client().messages.create({ model: MODEL, max_tokens: 9000, messages: [{ role: 'user', content: 'x' }] }),
    ),
    { status: 400, error: { error: { type: 'invalid_request_error' } } },
  );
});
