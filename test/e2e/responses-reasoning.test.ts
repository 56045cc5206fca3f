// Reasoning through the responses dialect, with the sim playing vLLM's Qwen3 reasoning parser, driven by
// the real `openai` package in both wire profiles: reasoning items streamed (the stream helper accepts
// their events) and in the body; reasoning.effort as the upstream's switch; replayed reasoning items accepted.
import OpenAI from 'openai';
import t from 'tap';
import { stackForFile } from '../kit/file-stack.js';
import { openaiClient, WIRE_PROFILES } from '../kit/openai-client.js';

const MODEL = 'qwen3-8b';
const INPUT = 'think: Let me greet.\necho: Hello!';
const REASONING = {
  type: 'reasoning',
  summary: [],
  content: [{ type: 'reasoning_text', text: '\nLet me greet.\n' }],
};

const stack = await stackForFile(t, {
  sim: { reasoningParser: true },
  yaml: 'dialects:\n  responses:\n    function_tools: true\n',
});

const lastUpstreamBody = (): Record<string, unknown> =>
  stack.sim
    .requests()
    .filter((request) => request.path === '/v1/chat/completions')
    .at(-1)!.body as Record<string, unknown>;

for (const wire of WIRE_PROFILES) {
  const client = (): OpenAI => openaiClient(stack, wire);

  t.test(`[${wire}] responses.create: a reasoning item before the message, the text without it`, async (t) => {
    const response = await client().responses.create({ model: MODEL, input: INPUT });
    t.match(response.output[0], { ...REASONING, id: /^rs_/ });
    t.equal(response.output[1]?.type, 'message');
    t.equal(response.output_text, 'Hello!');
  });

  t.test(
    `[${wire}] responses.stream: the helper takes the reasoning events and ends with the same output`,
    async (t) => {
      const stream = client().responses.stream({ model: MODEL, input: INPUT });
      const deltas: string[] = [];
      stream.on('response.reasoning_text.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      t.equal(deltas.join(''), '\nLet me greet.\n');
      t.match(final.output[0], { ...REASONING, id: /^rs_/ });
      t.equal(final.output[1]?.type, 'message');
      t.equal(final.output_text, 'Hello!');
    },
  );
}

const client = (): OpenAI => new OpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, maxRetries: 0 });

t.test('reasoning.effort reaches the upstream as chat_template_kwargs.enable_thinking (none: off)', async (t) => {
  const off = await client().responses.create({ model: MODEL, input: INPUT, reasoning: { effort: 'none' } });
  t.same(lastUpstreamBody().chat_template_kwargs, { enable_thinking: false });
  t.same(
    off.output.map((item) => item.type),
    ['message'],
  );
  t.equal(off.output_text, 'Hello!');
  await client().responses.create({ model: MODEL, input: INPUT, reasoning: { effort: 'high', summary: 'auto' } });
  t.same(lastUpstreamBody().chat_template_kwargs, { enable_thinking: true });
  await client().responses.create({ model: MODEL, input: INPUT });
  t.equal(lastUpstreamBody().chat_template_kwargs, undefined, "no effort: the upstream's default stands");
});

t.test(
  'a reasoning item passed back in input (as Codex replays a turn) is accepted and not sent upstream',
  async (t) => {
    const first = await client().responses.create({
      model: MODEL,
      input: 'think: Weather first.\nget_weather city=Oslo',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          strict: false,
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
    });
    t.same(
      first.output.map((item) => item.type),
      ['reasoning', 'function_call'],
    );
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') return;
    const second = await client().responses.create({
      model: MODEL,
      input: [
        { role: 'user', content: 'think: Weather first.\nget_weather city=Oslo' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'Sunny' },
      ],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          strict: false,
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
    });
    t.equal(second.output_text, 'Tool results: Sunny');
    const sent = lastUpstreamBody().messages as Array<Record<string, unknown>>;
    t.same(
      sent.map((message) => message.role),
      ['user', 'assistant', 'tool'],
    );
    t.equal(sent[1]?.reasoning_content, undefined, 'the reasoning item is dropped');
  },
);

t.test('chat: reasoning_content passes through as the upstream sent it, streamed and not', async (t) => {
  const openai = client();
  const completion = await openai.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: INPUT }],
  });
  t.match(completion.choices[0]?.message, { content: 'Hello!', reasoning_content: '\nLet me greet.\n' });
  const stream = await openai.chat.completions.create({
    model: MODEL,
    stream: true,
    messages: [{ role: 'user', content: INPUT }],
  });
  let reasoning = '';
  for await (const chunk of stream)
    reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
  t.equal(reasoning, '\nLet me greet.\n');
  await openai.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: INPUT }],
    reasoning_effort: 'none',
  });
  t.same(lastUpstreamBody().chat_template_kwargs, { enable_thinking: false });
});
