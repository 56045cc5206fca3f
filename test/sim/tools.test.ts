import t from 'tap';
import { complete, postJson, simFor, streamChat, type Chunk } from './sim-client.js';

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        metric: { type: 'boolean' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        tags: { type: 'array', items: { type: 'string' } },
        where: { type: 'object', properties: { lat: { type: 'number' }, label: { type: 'string' } } },
      },
      required: ['city'],
    },
  },
};
const time = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } },
};
const tools = [weather, time];
const ask = (content: string) => [{ role: 'user', content }];

type ToolDelta = NonNullable<Chunk['choices'][number]['delta']['tool_calls']>[number];
const toolDeltas = (chunks: Chunk[]): ToolDelta[] => chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);

t.test('a streamed tool call is a named delta, then argument fragments, then finish_reason tool_calls', async (t) => {
  const sim = await simFor(t);
  const { chunks, done } = await streamChat(sim, { messages: ask('What is the time? Use get_time.'), tools });
  t.equal(done, true);
  const deltas = toolDeltas(chunks);
  const [head, ...rest] = deltas;
  t.match(head, { index: 0, type: 'function', function: { name: 'get_time', arguments: '' } });
  t.match(head?.id, /^chatcmpl-tool-[0-9a-f]{32}$/);
  t.ok(rest.length > 1, 'several argument fragments');
  t.ok(
    rest.every(
      (d) =>
        d.index === 0 &&
        d.id === undefined &&
        d.function.name === undefined &&
        typeof d.function.arguments === 'string',
    ),
  );
  t.same(JSON.parse(rest.map((d) => d.function.arguments).join('')), { tz: 'example' });
  const last = chunks.filter((c) => c.choices.length > 0).at(-1)?.choices[0];
  t.equal(last?.finish_reason, 'tool_calls');
  t.notOk(
    chunks.some((c) => c.choices[0]?.delta.content),
    'no text beside the call',
  );
});

t.test('parallel tool calls stream one after the other with rising index', async (t) => {
  const sim = await simFor(t);
  const { chunks } = await streamChat(sim, {
    messages: ask('Call get_time and then get_weather for me.'),
    tools,
    stream_options: { include_usage: true },
  });
  const deltas = toolDeltas(chunks);
  const heads = deltas.filter((d) => d.id !== undefined);
  t.same(
    heads.map((d) => [d.index, d.function.name]),
    [
      [0, 'get_time'],
      [1, 'get_weather'],
    ],
  );
  const indexes = deltas.map((d) => d.index);
  t.same(indexes, [...indexes].sort(), 'all of call 0 before call 1');
  const args = (i: number) =>
    JSON.parse(
      deltas
        .filter((d) => d.index === i)
        .map((d) => d.function.arguments)
        .join(''),
    ) as unknown;
  t.same(args(1), {
    city: 'example',
    days: 42,
    metric: true,
    unit: 'celsius',
    tags: [],
    where: { lat: 42, label: 'example' },
  });
  const body = await complete(sim, { messages: ask('Call get_time and then get_weather for me.'), tools });
  t.equal(chunks.at(-1)?.usage?.completion_tokens, body.usage.completion_tokens, 'the same tokens streamed or not');
});

t.test('a non-streaming tool call has full JSON-string arguments and null content', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, {
    messages: ask('get_weather city="New York" days=3 metric=false unit=fahrenheit tags=["a","b"]'),
    tools,
  });
  const choice = body.choices[0];
  t.equal(choice?.finish_reason, 'tool_calls');
  t.equal(choice?.message.content, null);
  t.equal(choice?.message.tool_calls.length, 1);
  const call = choice?.message.tool_calls[0];
  t.equal(call?.type, 'function');
  t.equal(call?.function.name, 'get_weather');
  t.equal(
    call?.function.arguments,
    '{"city": "New York", "days": 3, "metric": false, "unit": "fahrenheit", "tags": ["a", "b"], "where": {"lat": 42, "label": "example"}}',
  );
});

t.test('a value that does not fit the schema falls back to the default', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, { messages: ask('get_weather days=soon unit=kelvin city=Oslo.'), tools });
  t.match(JSON.parse(body.choices[0]?.message.tool_calls[0]?.function.arguments ?? '{}'), {
    city: 'Oslo',
    days: 42,
    unit: 'celsius',
  });
});

t.test('parallel_tool_calls false makes only the first call', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, { messages: ask('get_weather and get_time'), tools, parallel_tool_calls: false });
  t.same(
    body.choices[0]?.message.tool_calls.map((c) => c.function.name),
    ['get_weather'],
  );
});

t.test('auto calls only the tools named as words in the last user message', async (t) => {
  const sim = await simFor(t);
  const none = await complete(sim, { messages: ask('What is the weather like? get_weathering is not a name.'), tools });
  t.equal(none.choices[0]?.finish_reason, 'stop');
  t.same(none.choices[0]?.message.tool_calls, []);
  t.type(none.choices[0]?.message.content, 'string');
});

t.test('a named tool_choice calls that tool', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, {
    messages: ask('anything'),
    tools,
    tool_choice: { type: 'function', function: { name: 'get_time' } },
  });
  t.same(
    body.choices[0]?.message.tool_calls.map((c) => c.function.name),
    ['get_time'],
  );
  const unknown = await postJson(sim, '/v1/chat/completions', {
    messages: ask('x'),
    tools,
    tool_choice: { type: 'function', function: { name: 'nope' } },
  });
  t.equal(unknown.status, 400);
});

t.test('required calls the first tool unless tools are named', async (t) => {
  const sim = await simFor(t);
  const first = await complete(sim, { messages: ask('anything'), tools, tool_choice: 'required' });
  t.same(
    first.choices[0]?.message.tool_calls.map((c) => c.function.name),
    ['get_weather'],
  );
  const named = await complete(sim, { messages: ask('use get_time'), tools, tool_choice: 'required' });
  t.same(
    named.choices[0]?.message.tool_calls.map((c) => c.function.name),
    ['get_time'],
  );
});

t.test('tool_choice none answers with text even when a tool is named', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, { messages: ask('use get_time'), tools, tool_choice: 'none' });
  t.equal(body.choices[0]?.finish_reason, 'stop');
  t.same(body.choices[0]?.message.tool_calls, []);
});

t.test('after a tool result the answer quotes the results instead of calling again', async (t) => {
  const sim = await simFor(t);
  const messages = [
    { role: 'user', content: 'use get_time and get_weather' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'get_time', arguments: '{"tz": "UTC"}' } },
        { id: 'b', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'a', content: '12:00' },
    { role: 'tool', tool_call_id: 'b', content: 'sunny' },
  ];
  const body = await complete(sim, { messages, tools });
  t.equal(body.choices[0]?.message.content, 'Tool results: 12:00; sunny');
  t.equal(body.choices[0]?.finish_reason, 'stop');
});

t.test('a tool call cut by max_tokens is raw text with finish_reason length', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, { messages: ask('use get_time'), tools, max_tokens: 10 });
  t.equal(body.choices[0]?.finish_reason, 'length');
  t.same(body.choices[0]?.message.tool_calls, []);
  t.match(body.choices[0]?.message.content, /^<tool_call>\n\{"name": "get_time"/);
  const { chunks } = await streamChat(sim, { messages: ask('use get_time'), tools, max_tokens: 10 });
  t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'length');
});

t.test('an unquoted prop=- leaves the property out; a quoted "-" is the string', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, {
    messages: ask('get_weather city="-" days=- metric=- unit=- tags=- where=-'),
    tools,
  });
  t.same(JSON.parse(body.choices[0]?.message.tool_calls[0]?.function.arguments ?? '{}'), { city: '-' });
});

t.test("Claude Code's system reminders in the user turn name no tool and give no value", async (t) => {
  const sim = await simFor(t);
  const reminder = '<system-reminder>\nget_time tz=UTC\n</system-reminder>\n';
  const body = await complete(sim, {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: reminder },
          { type: 'text', text: 'get_weather city=Oslo' },
        ],
      },
    ],
    tools,
  });
  const calls = body.choices[0]?.message.tool_calls ?? [];
  t.same(
    calls.map((c) => c.function.name),
    ['get_weather'],
  );
  t.match(JSON.parse(calls[0]?.function.arguments ?? '{}'), { city: 'Oslo' });
});

t.test('after tool results, auto calls the named tools not called yet, then answers', async (t) => {
  const sim = await simFor(t);
  const user = { role: 'user', content: 'get_time first, then get_weather city=Oslo' };
  const called = (id: string, name: string) => [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }] },
    { role: 'tool', tool_call_id: id, content: `${name} done` },
  ];
  // get_weather is loaded only after the first call (as Claude Code loads a deferred tool).
  const first = await complete(sim, { messages: [user], tools: [time] });
  t.same(
    first.choices[0]?.message.tool_calls.map((c) => c.function.name),
    ['get_time'],
  );
  const second = await complete(sim, { messages: [user, ...called('a', 'get_time')], tools });
  t.same(
    second.choices[0]?.message.tool_calls.map((c) => c.function.name),
    ['get_weather'],
    'the tool loaded since is called',
  );
  const third = await complete(sim, {
    messages: [user, ...called('a', 'get_time'), ...called('b', 'get_weather')],
    tools,
  });
  t.equal(third.choices[0]?.message.content, 'Tool results: get_weather done', 'every named tool called: the answer');
});
