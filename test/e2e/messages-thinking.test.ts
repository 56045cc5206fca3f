// Thinking through the message dialect, with the sim playing vLLM's Qwen3 reasoning parser, driven by the
// real @anthropic-ai/sdk: thinking blocks closed by a signature the gateway verifies when they come back,
// thinking, text and tool calls in the order the model produced them, and thinking billed as output.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { encode } from '../../sim/qwen3-prompt.js';
import { ledgerRow } from '../helpers/metered-answers.js';
import { rejection } from '../helpers/rejection.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { defaultPricer } from '../kit/prices.js';

const MODEL = 'qwen3-8b';
const BASH = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
const THINKING = { type: 'enabled' as const, budget_tokens: 1024 };

let stack: Stack;
let key: string;
t.before(async () => {
  stack = await startStack({
    sim: { reasoningParser: true },
    yaml: 'plugins:\n  - name: auth\n  - name: meter\n',
  });
  const store = await stack.store();
  await store.orgs.create('acme');
  await store.orgs.addCredits('acme', 100_000_000);
  key = (await store.keys.create('acme', 'tests')).key;
});
t.teardown(() => stack.close());

const client = (): Anthropic => new Anthropic({ apiKey: key, baseURL: stack.gateway.url, maxRetries: 0 });
const lastUpstreamBody = (): Record<string, unknown> =>
  stack.sim
    .requests()
    .filter((request) => request.path === '/v1/chat/completions')
    .at(-1)!.body as Record<string, unknown>;

t.test('streamed thinking is a thinking block of thinking_deltas closed by a signature_delta', async (t) => {
  const stream = client().messages.stream({
    model: MODEL,
    max_tokens: 2000,
    thinking: THINKING,
    messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }],
  });
  const events: Array<{ type: string; delta?: { type: string } }> = [];
  stream.on('streamEvent', (event) => events.push(event as (typeof events)[number]));
  const message = await stream.finalMessage();
  const thinking = message.content[0];
  t.equal(thinking?.type, 'thinking');
  if (thinking?.type !== 'thinking') return;
  t.equal(thinking.thinking, '\nLet me greet.\n');
  t.match(thinking.signature, /^v1\.[A-Za-z0-9+/]{43}=$/);
  t.same(message.content[1], { type: 'text', text: 'Hello!' });
  const firstBlock = events.filter((event) => !('index' in event) || (event as { index: number }).index === 0);
  t.same(
    firstBlock.map((event) => (event.delta?.type ? `${event.type}:${event.delta.type}` : event.type)),
    [
      'message_start',
      'content_block_start',
      'content_block_delta:thinking_delta',
      'content_block_delta:thinking_delta',
      'content_block_delta:thinking_delta',
      'content_block_delta:thinking_delta',
      'content_block_delta:thinking_delta',
      'content_block_delta:thinking_delta',
      'content_block_delta:signature_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
});

t.test('the non-streamed body carries the same thinking block with the same signature', async (t) => {
  const request = {
    model: MODEL,
    max_tokens: 2000,
    thinking: THINKING,
    messages: [{ role: 'user' as const, content: 'think: Let me greet.\necho: Hello!' }],
  };
  const body = await client().messages.create(request);
  const streamed = await client().messages.stream(request).finalMessage();
  t.same(body.content, streamed.content);
  t.equal(body.content[0]?.type, 'thinking');
});

t.test(
  'thinking: enabled, disabled or unsaid reaches the upstream as chat_template_kwargs.enable_thinking',
  async (t) => {
    const ask = (thinking?: Anthropic.ThinkingConfigParam) =>
      client().messages.create({
        model: MODEL,
        max_tokens: 2000,
        messages: [{ role: 'user', content: 'echo: Hi' }],
        ...(thinking ? { thinking } : {}),
      });
    const on = await ask(THINKING);
    t.same(lastUpstreamBody().chat_template_kwargs, { enable_thinking: true });
    t.equal(on.content[0]?.type, 'thinking');
    const off = await ask({ type: 'disabled' });
    t.same(lastUpstreamBody().chat_template_kwargs, { enable_thinking: false });
    t.same(off.content, [{ type: 'text', text: 'Hi' }]);
    const unsaid = await ask();
    t.equal(lastUpstreamBody().chat_template_kwargs, undefined, "the upstream's default stands");
    t.equal(unsaid.content[0]?.type, 'thinking', "Qwen3's default is to think");
  },
);

t.test('thinking tokens are billed as output: the ledger row counts them in output_tokens', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      model: MODEL,
      max_tokens: 2000,
      thinking: THINKING,
      messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }],
    }),
  });
  const body = (await response.json()) as Anthropic.Message;
  const thinkingTokens = 2 + 2 * encode('\n').length + encode('Let me greet.').length + encode('\n\n').length;
  const expected = thinkingTokens + encode('Hello!').length + 1;
  t.equal(body.usage.output_tokens, expected, 'the usage counts the thinking');
  const row = await ledgerRow((await stack.store()).db, response.headers.get('x-request-id')!);
  t.equal(row?.output_tokens, expected, 'so does the ledger');
  const pricer = defaultPricer();
  t.equal(
    Number(row?.cost_micros),
    pricer.cost({
      input: row!.input_tokens,
      output: expected,
      cacheRead: row!.cache_read_tokens,
      cacheWrite5m: row!.cache_write_tokens,
      cacheWrite1h: 0,
      searches: 0,
    }),
    'and the cost prices them as output',
  );
});

t.test(
  'a Claude Code-style turn interleaves thinking → tool call, then (tool result) thinking → text, the thinking replayed',
  async (t) => {
    const user = 'think: I need the weather.\nget_weather city=Paris';
    const request = {
      model: MODEL,
      max_tokens: 4000,
      thinking: { type: 'enabled' as const, budget_tokens: 2048 },
      tools: [BASH],
      messages: [{ role: 'user' as const, content: user }] as Anthropic.MessageParam[],
    };
    const first = await client().messages.stream(request).finalMessage();
    t.same(
      first.content.map((block) => block.type),
      ['thinking', 'tool_use'],
    );
    t.equal(first.stop_reason, 'tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') return;
    t.same(use.input, { city: 'Paris' });
    request.messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 C' }] },
    );
    const second = await client().messages.stream(request).finalMessage();
    t.same(
      second.content.map((block) => block.type),
      ['thinking', 'text'],
    );
    t.equal(second.stop_reason, 'end_turn');
    t.match(second.content[1], { type: 'text', text: 'Tool results: Sunny, 21 C' });
    const sent = lastUpstreamBody().messages as Array<Record<string, unknown>>;
    t.match(
      sent[1],
      { role: 'assistant', reasoning_content: '\nI need the weather.\n' },
      'the verified thinking goes back',
    );
  },
);

t.test('regression: a replayed thinking block whose text was changed is a 400 naming its signature', async (t) => {
  const first = await client().messages.create({
    model: MODEL,
    max_tokens: 2000,
    thinking: THINKING,
    messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }],
  });
  const [thinking, ...rest] = first.content;
  if (thinking?.type !== 'thinking') return t.fail('no thinking block');
  const replay = (block: Anthropic.ThinkingBlockParam) =>
    client().messages.create({
      model: MODEL,
      max_tokens: 2000,
      thinking: THINKING,
      messages: [
        { role: 'user', content: 'think: Let me greet.\necho: Hello!' },
        { role: 'assistant', content: [block, ...rest] },
        { role: 'user', content: 'echo: Again' },
      ],
    });
  const accepted = await replay(thinking);
  t.equal(accepted.content.at(-1)?.type, 'text', 'the block as received is accepted');
  for (const changed of [
    { ...thinking, thinking: '\nLet me insult.\n' },
    { ...thinking, signature: changedSignature(thinking.signature) },
  ]) {
    const error = await rejection(replay(changed));
    t.match(error, {
      status: 400,
      error: {
        type: 'error',
        error: { type: 'invalid_request_error', message: /messages\[1\]\.content\[0\]\.signature/ },
      },
    });
  }
});

t.test("current vLLM's field name, reasoning, gives the same thinking blocks, streamed and not", async (t) => {
  const current = await startStack({ sim: { reasoningParser: true, reasoningField: 'reasoning' } });
  t.teardown(() => current.close());
  const anthropic = new Anthropic({ apiKey: 'k', baseURL: current.gateway.url, maxRetries: 0 });
  const request = {
    model: MODEL,
    max_tokens: 2000,
    thinking: THINKING,
    messages: [{ role: 'user' as const, content: 'think: Let me greet.\necho: Hello!' }],
  };
  for (const message of [
    await anthropic.messages.create(request),
    await anthropic.messages.stream(request).finalMessage(),
  ]) {
    t.match(message.content, [
      { type: 'thinking', thinking: '\nLet me greet.\n' },
      { type: 'text', text: 'Hello!' },
    ]);
  }
});

t.test(
  'count_tokens counts the prompt the switch renders: the same as the answer reports, thinking on or off',
  async (t) => {
    for (const thinking of [THINKING, { type: 'disabled' as const }]) {
      const request = {
        model: MODEL,
        thinking,
        messages: [{ role: 'user' as const, content: `echo: count me ${thinking.type}` }],
      };
      const counted = await client().messages.countTokens(request);
      const answer = await client().messages.create({ ...request, max_tokens: 2000 });
      t.equal(
        counted.input_tokens,
        answer.usage.input_tokens + (answer.usage.cache_read_input_tokens ?? 0),
        thinking.type,
      );
    }
  },
);

/**
 * The signature with the last character of its MAC changed to another that is also canonical base64 (the
 * last character before '=' carries 4 bits, so it is one of A, E, I, …): a forgery the check must refuse.
 * Always another character: replacing it with a fixed one left it unchanged when it already was that one.
 */
function changedSignature(signature: string): string {
  const last = signature.at(-2);
  return `${signature.slice(0, -2)}${last === 'A' ? 'E' : 'A'}${signature.slice(-1)}`;
}
