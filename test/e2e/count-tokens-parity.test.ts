// count_tokens parity: for 240 varied requests, the count equals the input tokens /v1/messages reports
// for the same request (input_tokens + cache_read_input_tokens), against the reference upstream.
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';
import { prng } from '../../sim/prng.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack();
});
t.teardown(() => stack.close());

const TEXTS = [
  'Hello there.',
  'What is the capital of France?',
  'Explique-moi la photosynthèse en deux phrases.',
  '東京の天気はどうですか？明日は雨が降りますか。',
  'Привет! Как дела? Расскажи мне о погоде.',
  'مرحبا، كيف حالك اليوم؟',
  'Emoji test 🚀🔥 with symbols <>&"\' and tabs\tand\nnewlines.',
  '```python\ndef add(a, b):\n    return a + b\n```\nWhat does this do?',
  'Ein sehr langer deutscher Satz mit Umlauten: Größenordnung, Übermäßig, Ärger.',
  '{"json": "inside", "numbers": [1, 2, 3]}',
];
const TOOLS = [
  {
    name: 'get_weather',
    description: 'Get the weather for a city',
    input_schema: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
    },
  },
  {
    name: 'search_docs',
    description: 'Search the documentation',
    input_schema: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query'],
    },
  },
  { name: 'no_args', input_schema: { type: 'object', properties: {} } },
  {
    name: 'nested',
    description: 'Nested arguments',
    input_schema: {
      type: 'object',
      properties: { filter: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } } },
    },
  },
];

function buildRequest(index: number): Record<string, unknown> {
  const next = prng(index + 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const text = (): string => {
    const base = pick(TEXTS);
    return next() < 0.1 ? Array.from({ length: 40 }, () => pick(TEXTS)).join(' ') : base;
  };
  const request: Record<string, unknown> = { model: 'qwen3-8b' };
  const systemKind = next();
  if (systemKind < 0.3) request.system = text();
  else if (systemKind < 0.5)
    request.system = [
      { type: 'text', text: text(), cache_control: { type: 'ephemeral' } },
      { type: 'text', text: text() },
    ];
  const tools = TOOLS.filter(() => next() < 0.35);
  if (tools.length > 0) request.tools = tools;
  const messages: Array<Record<string, unknown>> = [];
  const turns = 1 + Math.floor(next() * 4);
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: 'user',
      content:
        next() < 0.5
          ? text()
          : [
              { type: 'text', text: text() },
              { type: 'text', text: text() },
            ],
    });
    if (turn === turns - 1) break;
    if (tools.length > 0 && next() < 0.5) {
      const tool = pick(tools);
      const id = `toolu_${index}_${turn}`;
      messages.push({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id, name: tool.name, input: { city: 'Paris', query: text().slice(0, 20) } },
        ],
      });
      messages.push({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: next() < 0.5 ? text() : [{ type: 'text', text: text() }],
            ...(next() < 0.2 ? { is_error: true } : {}),
          },
          { type: 'text', text: text() },
        ],
      });
    } else messages.push({ role: 'assistant', content: next() < 0.5 ? text() : [{ type: 'text', text: text() }] });
  }
  request.messages = messages;
  return request;
}

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

t.test(
  'count_tokens equals the input tokens of the same request sent to /v1/messages, for every one of 240 requests',
  async (t) => {
    const mismatches: string[] = [];
    const requests = Array.from({ length: 240 }, (_, index) => buildRequest(index));
    t.ok(requests.filter((request) => request.tools).length > 50, 'many carry tools');
    t.ok(requests.filter((request) => request.system).length > 50, 'many carry a system prompt');
    for (const [index, request] of requests.entries()) {
      const counted = (await post('/v1/messages/count_tokens', request)).input_tokens as number;
      const usage = (await post('/v1/messages', { ...request, max_tokens: 1 })).usage as {
        input_tokens: number;
        cache_read_input_tokens: number;
      };
      const reported = usage.input_tokens + usage.cache_read_input_tokens;
      if (counted !== reported) mismatches.push(`request ${index}: count_tokens ${counted}, /v1/messages ${reported}`);
    }
    t.same(mismatches, [], 'parity is 100%');
  },
);

t.test('count_tokens counts the system prompt and the tool definitions', async (t) => {
  const bare = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hi' }] };
  const plain = (await post('/v1/messages/count_tokens', bare)).input_tokens as number;
  const withSystem = (await post('/v1/messages/count_tokens', { ...bare, system: 'You are a helpful assistant.' }))
    .input_tokens as number;
  const withTools = (await post('/v1/messages/count_tokens', { ...bare, tools: TOOLS })).input_tokens as number;
  t.ok(withSystem > plain);
  t.ok(withTools > plain + 100);
});
