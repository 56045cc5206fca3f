import t from 'tap';
import { complete, postJson, simFor, streamChat } from './sim-client.js';

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const conversation = [
  { role: 'system', content: 'You are terse.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Weather?' },
      { type: 'text', text: 'In Paris, please.' },
    ],
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '18°C, sunny' },
  { role: 'user', content: 'Thanks! And tomorrow?' },
];

t.test('prompt_tokens equals the /tokenize count of the same messages', async (t) => {
  const sim = await simFor(t);
  const plain = [{ role: 'user', content: 'Hello there' }];
  const tok = await postJson<{ count: number; tokens: number[]; max_model_len: number; token_strs: null }>(
    sim,
    '/tokenize',
    { messages: plain },
  );
  t.equal(tok.status, 200);
  t.equal(tok.body.count, tok.body.tokens.length);
  t.equal(tok.body.max_model_len, 32768);
  t.equal(tok.body.token_strs, null);
  t.equal((await complete(sim, { messages: plain })).usage.prompt_tokens, tok.body.count);

  const withTools = await postJson<{ count: number }>(sim, '/tokenize', { messages: conversation, tools });
  const body = await complete(sim, { messages: conversation, tools, tool_choice: 'none' });
  t.equal(body.usage.prompt_tokens, withTools.body.count, 'with tools, content parts, tool calls and tool results');
  const { chunks } = await streamChat(sim, {
    messages: conversation,
    tools,
    tool_choice: 'none',
    stream_options: { include_usage: true },
  });
  t.equal(chunks.at(-1)?.usage?.prompt_tokens, withTools.body.count, 'the same in a stream');
});

t.test('the prompt is the Qwen3 chat template rendered with the generation prompt', async (t) => {
  const sim = await simFor(t);
  const tok = await postJson<{ tokens: number[] }>(sim, '/tokenize', {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
    ],
  });
  const text = await postJson<{ prompt: string }>(sim, '/detokenize', { tokens: tok.body.tokens });
  t.equal(
    text.body.prompt,
    '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n',
  );
  const noGen = await postJson<{ tokens: number[] }>(sim, '/tokenize', {
    messages: [{ role: 'user', content: 'Hi' }],
    add_generation_prompt: false,
  });
  t.equal(
    (await postJson<{ prompt: string }>(sim, '/detokenize', { tokens: noGen.body.tokens })).body.prompt,
    '<|im_start|>user\nHi<|im_end|>\n',
  );
});

t.test('/tokenize of a plain prompt encodes the text as is', async (t) => {
  const sim = await simFor(t);
  const tok = await postJson<{ count: number; tokens: number[]; token_strs: string[] }>(sim, '/tokenize', {
    prompt: 'Hello world',
    return_token_strs: true,
  });
  t.same(tok.body.tokens, [9707, 1879]);
  t.same(tok.body.token_strs, ['Hello', 'Ġworld']);
  const bad = await postJson<{ error: { code: number } }>(sim, '/detokenize', { tokens: [1, 'x'] });
  t.equal(bad.status, 400);
  const otherModel = await postJson(sim, '/tokenize', { model: 'gpt-4o', prompt: 'x' });
  t.equal(otherModel.status, 404);
});

t.test('completion_tokens counts the generated tokens, the end-of-turn token included', async (t) => {
  const sim = await simFor(t, { outputTokens: 10 });
  t.equal((await complete(sim, { messages: [{ role: 'user', content: 'Hi' }] })).usage.completion_tokens, 10);
  const echoed = await complete(sim, { messages: [{ role: 'user', content: 'echo: Hello world' }] });
  t.equal(echoed.usage.completion_tokens, 3, '"Hello", " world" and <|im_end|>');
});

t.test('cached_tokens counts the leading 16-token blocks of a repeated prefix', async (t) => {
  const sim = await simFor(t);
  const system = { role: 'system', content: 'You are a careful assistant. '.repeat(20) };
  const first = await complete(sim, { messages: [system, { role: 'user', content: 'First question?' }] });
  t.equal(first.usage.prompt_tokens_details.cached_tokens, 0, 'nothing cached at first');
  const again = await complete(sim, { messages: [system, { role: 'user', content: 'First question?' }] });
  const p = again.usage.prompt_tokens;
  t.equal(
    again.usage.prompt_tokens_details.cached_tokens,
    Math.floor((p - 1) / 16) * 16,
    'a repeat hits every full block but the last token',
  );
  const other = await complete(sim, {
    messages: [system, { role: 'user', content: 'A different question entirely?' }],
  });
  const cached = other.usage.prompt_tokens_details.cached_tokens;
  t.equal(cached % 16, 0);
  t.ok(cached > 0 && cached < other.usage.prompt_tokens, `shares the system prompt blocks (${cached})`);

  const followUp = await complete(sim, {
    messages: [
      system,
      { role: 'user', content: 'First question?' },
      { role: 'assistant', content: first.choices[0]?.message.content },
      { role: 'user', content: 'More?' },
    ],
  });
  t.ok(
    followUp.usage.prompt_tokens_details.cached_tokens >= Math.floor((p - 1) / 16) * 16,
    'the next turn reuses the previous prompt',
  );
});

t.test('x-sim-usage replaces the reported figures, as a misbehaving server would send them', async (t) => {
  const sim = await simFor(t);
  const messages = [{ role: 'user', content: 'echo: hi' }];
  const body = await complete(sim, { messages }, { 'x-sim-usage': 'prompt=1e18,completion=-5,cached=2.5' });
  t.same(body.usage, {
    prompt_tokens: 1e18,
    total_tokens: 1e18 - 5,
    completion_tokens: -5,
    prompt_tokens_details: { cached_tokens: 2.5 },
  });
  const { chunks } = await streamChat(
    sim,
    { messages, stream_options: { include_usage: true, continuous_usage_stats: true } },
    { 'x-sim-usage': 'completion=0.5' },
  );
  t.ok(
    chunks.every((chunk) => chunk.usage?.completion_tokens === 0.5),
    'every usage of the request, the running one included',
  );
  const bad = await postJson(
    sim,
    '/v1/chat/completions',
    { model: 'Qwen/Qwen3-8B', messages },
    { 'x-sim-usage': 'tokens=3' },
  );
  t.equal(bad.status, 400, 'a malformed value is a 400');
});
