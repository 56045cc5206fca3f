// The sim's reasoning parser (README "Reasoning"): Qwen3's thinking split off as vLLM's qwen3 parser does.
import t from 'tap';
import { complete, streamChat, simFor } from './sim-client.js';
import { countChatTokens } from '../../sim/chat-prompt.js';
import { encode } from '../../sim/qwen3-prompt.js';

/** `<think>\nTEXT\n</think>\n\n` as the model writes it: the tags are single tokens, the text is encoded alone. */
const thinkingTokens = (text: string): number =>
  2 + encode('\n').length * 2 + encode(text).length + encode('\n\n').length;

const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

t.test('without the reasoning parser a think: line is ordinary text and no reasoning comes', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, { messages: [{ role: 'user', content: 'echo: Hi\nthink: hmm' }] });
  t.equal(body.choices[0]?.message.content, 'Hi\nthink: hmm');
  t.equal(body.choices[0]?.message.reasoning_content, null);
});

t.test('the think: line dictates the reasoning; the answer follows </think> with its "\\n\\n"', async (t) => {
  const sim = await simFor(t, { reasoningParser: true });
  const body = await complete(sim, { messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }] });
  const message = body.choices[0]?.message;
  t.equal(message?.reasoning_content, '\nLet me greet.\n');
  t.equal(message?.content, '\n\nHello!');
  t.equal(body.choices[0]?.finish_reason, 'stop');
});

t.test('reasoning tokens count in completion_tokens, the think tags and the end-of-turn token included', async (t) => {
  const sim = await simFor(t, { reasoningParser: true });
  const body = await complete(sim, { messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }] });
  t.equal(body.usage.completion_tokens, thinkingTokens('Let me greet.') + encode('Hello!').length + 1);
});

t.test('without a think: line the reasoning is PRNG words, the same for the same prompt', async (t) => {
  const sim = await simFor(t, { reasoningParser: true });
  const request = { messages: [{ role: 'user', content: 'Tell me something.' }] };
  const first = await complete(sim, request);
  const second = await complete(sim, request);
  t.match(first.choices[0]?.message.reasoning_content, /^\n[A-Z][a-z]+( [a-z]+)+\.\n$/);
  t.equal(first.choices[0]?.message.reasoning_content, second.choices[0]?.message.reasoning_content);
  t.match(first.choices[0]?.message.content, /^\n\n[A-Z]/);
});

t.test('enable_thinking false: no reasoning, and the answer is the one thinking would have given', async (t) => {
  const sim = await simFor(t, { reasoningParser: true });
  const body = await complete(sim, {
    chat_template_kwargs: { enable_thinking: false },
    messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }],
  });
  t.equal(body.choices[0]?.message.reasoning_content, null);
  t.equal(body.choices[0]?.message.content, 'Hello!');
  t.equal(body.usage.completion_tokens, encode('Hello!').length + 1);
  // The template renders the empty think block into the prompt, as it does for vLLM.
  const messages = [{ role: 'user' as const, content: 'think: Let me greet.\necho: Hello!' }];
  t.equal(
    body.usage.prompt_tokens,
    countChatTokens({ messages, tools: null, chatTemplateKwargs: { enable_thinking: false } }),
  );
});

t.test('streamed: the tags stream nothing, the thinking streams as reasoning_content, then the content', async (t) => {
  const sim = await simFor(t, { reasoningParser: true });
  const { chunks } = await streamChat(sim, {
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hi' }],
  });
  const deltas = chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0]!.delta);
  t.same(deltas, [
    { role: 'assistant', content: '' },
    { reasoning_content: '\n' },
    { reasoning_content: 'Let' },
    { reasoning_content: ' me' },
    { reasoning_content: ' greet' },
    { reasoning_content: '.' },
    { reasoning_content: '\n' },
    { content: '\n\n' },
    { content: 'Hi' },
    { content: '' },
  ]);
  t.equal(chunks.at(-1)?.usage?.completion_tokens, thinkingTokens('Let me greet.') + encode('Hi').length + 1);
});

t.test('reasoningField reasoning names the field as current vLLM does, streamed and not', async (t) => {
  const sim = await simFor(t, { reasoningParser: true, reasoningField: 'reasoning' });
  const messages = [{ role: 'user', content: 'think: Hm.\necho: Hi' }];
  const body = await complete(sim, { messages });
  t.equal(body.choices[0]?.message.reasoning, '\nHm.\n');
  t.notOk('reasoning_content' in (body.choices[0]?.message ?? {}));
  const { chunks } = await streamChat(sim, { messages });
  const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning ?? '').join('');
  t.equal(reasoning, '\nHm.\n');
  t.notOk(chunks.some((c) => c.choices[0]?.delta.reasoning_content !== undefined));
});

t.test(
  'with tools the thinking comes first, then "\\n\\n" as content beside the calls (hermes keeps it)',
  async (t) => {
    const sim = await simFor(t, { reasoningParser: true });
    const body = await complete(sim, {
      tools: [WEATHER],
      messages: [{ role: 'user', content: 'think: I need the weather.\nget_weather city=Paris' }],
    });
    const message = body.choices[0]?.message;
    t.equal(message?.reasoning_content, '\nI need the weather.\n');
    t.equal(message?.content, '\n\n');
    t.same(
      message?.tool_calls.map((c) => c.function),
      [{ name: 'get_weather', arguments: '{"city": "Paris"}' }],
    );
    t.equal(body.choices[0]?.finish_reason, 'tool_calls');
    const { chunks } = await streamChat(sim, {
      tools: [WEATHER],
      messages: [{ role: 'user', content: 'think: I need the weather.\nget_weather city=Paris' }],
    });
    const kinds = chunks
      .map((c) => c.choices[0]?.delta)
      .map((d) => (d?.reasoning_content ? 'reasoning' : d?.tool_calls ? 'tool' : d?.content ? 'content' : ''))
      .filter((kind, i, all) => kind !== '' && kind !== all[i - 1]);
    t.same(kinds, ['reasoning', 'content', 'tool']);
  },
);

t.test('max_tokens inside the thinking: all of it is reasoning, no content, finish_reason length', async (t) => {
  const sim = await simFor(t, { reasoningParser: true });
  const body = await complete(sim, {
    max_tokens: 3,
    messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }],
  });
  t.equal(body.choices[0]?.message.reasoning_content, '\nLet');
  t.equal(body.choices[0]?.message.content, null);
  t.equal(body.choices[0]?.finish_reason, 'length');
  t.equal(body.usage.completion_tokens, 3);
});
