// The chat dialect driven by the real `openai` package (current major on Node 20: 6.x), in both wire profiles.
import OpenAI from 'openai';
import t from 'tap';
import { stackForFile } from '../kit/file-stack.js';
import { forwardHeaders } from '../kit/stack-presets.js';
import { openaiClient, WIRE_PROFILES } from '../kit/openai-client.js';

const MODEL = 'qwen3-8b';
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const stack = await stackForFile(t, { yaml: forwardHeaders('x-sim-fault') });

for (const wire of WIRE_PROFILES) {
  const client = (): OpenAI => openaiClient(stack, wire);

  t.test(`[${wire}] create returns a chat.completion with the public model id and usage`, async (t) => {
    const completion = await client().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'echo: Hello there' }],
    });
    t.equal(completion.object, 'chat.completion');
    t.equal(completion.model, MODEL);
    t.equal(completion.choices[0]?.message.content, 'Hello there');
    t.equal(completion.choices[0]?.finish_reason, 'stop');
    const usage = completion.usage!;
    t.ok(usage.prompt_tokens > 0);
    t.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
  });

  t.test(`[${wire}] max_tokens cuts the answer with finish_reason length`, async (t) => {
    const completion = await client().chat.completions.create({
      model: MODEL,
      max_tokens: 3,
      messages: [{ role: 'user', content: 'Tell me a story.' }],
    });
    t.equal(completion.choices[0]?.finish_reason, 'length');
    t.equal(completion.usage?.completion_tokens, 3);
  });

  t.test(`[${wire}] create with stream yields the text and, with include_usage, the usage`, async (t) => {
    const stream = await client().chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'echo: one two three' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      t.equal(chunk.model, MODEL);
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    t.equal(text, 'one two three');
    t.equal(finish, 'stop');
    t.ok(usage && usage.completion_tokens > 0 && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens);
  });

  t.test(`[${wire}] the stream helper assembles the final completion`, async (t) => {
    const runner = client().chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'echo: streamed helper' }],
    });
    const final = await runner.finalChatCompletion();
    t.equal(final.choices[0]?.message.content, 'streamed helper');
    t.equal(final.choices[0]?.finish_reason, 'stop');
  });

  t.test(`[${wire}] a tool round trip: tool_calls, then a tool message, then the answer`, async (t) => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Use get_weather city=Paris' }];
    const first = await client().chat.completions.create({ model: MODEL, messages, tools: [WEATHER_TOOL] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    t.equal(first.choices[0]?.finish_reason, 'tool_calls');
    t.ok(call && call.type === 'function');
    if (!call || call.type !== 'function') return;
    t.equal(call.function.name, 'get_weather');
    t.same(JSON.parse(call.function.arguments), { city: 'Paris' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 C' });
    const second = await client().chat.completions.create({ model: MODEL, messages, tools: [WEATHER_TOOL] });
    t.equal(second.choices[0]?.finish_reason, 'stop');
    t.match(second.choices[0]?.message.content ?? '', /Sunny, 21 C/);
  });

  t.test(`[${wire}] streamed tool calls assemble through the stream helper`, async (t) => {
    const runner = client().chat.completions.stream({
      model: MODEL,
      tools: [WEATHER_TOOL],
      messages: [{ role: 'user', content: 'get_weather city=Oslo' }],
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    t.equal(final.choices[0]?.finish_reason, 'tool_calls');
    t.ok(call && call.type === 'function' && call.function.name === 'get_weather');
    if (call?.type === 'function') t.same(JSON.parse(call.function.arguments), { city: 'Oslo' });
  });

  t.test(`[${wire}] an unknown model is a NotFoundError with code model_not_found`, async (t) => {
    await t.rejects(client().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }), {
      status: 404,
      code: 'model_not_found',
      param: 'model',
    });
  });

  t.test(`[${wire}] an upstream cut in the middle of a stream surfaces as an error in the iterator`, async (t) => {
    const stream = await client().chat.completions.create(
      { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] },
      { headers: { 'x-sim-fault': 'cut:3' } },
    );
    await t.rejects(
      (async () => {
        for await (const chunk of stream) void chunk;
      })(),
      { message: /broke in the middle/ },
    );
  });
}
