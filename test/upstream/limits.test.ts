// What bounds an answer, in front of a real llama-server: count_tokens against the prompt the server
// really tokenizes (a prefill included), max_tokens cuts, stop sequences (reported on /v1/messages,
// never cutting the reasoning), a prompt over the context, and a JSON schema the server's grammar enforces.
import t from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { CONTINUATION, SAYS } from '../../upstream-tier/tiny-qwen3-answers.js';
import { askRaw, askSdk } from './dialect-answers.js';
import { ledgerCheck, startLlamaStack, type LlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';

t.setTimeout(TIER_TIMEOUT_MS);

/** Each scenario over plain HTTP and through the real SDKs. */
const CLIENTS = [
  ['over HTTP', askRaw],
  ['through the SDK', askSdk],
] as const;

let llama: LlamaStack;
t.before(async () => {
  llama = await startLlamaStack(t);
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(llama.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city.',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Conversations of the message dialect, each counted and then sent. */
const CONVERSATIONS: Record<string, Record<string, unknown>> = {
  'a plain question': { messages: [{ role: 'user', content: 'Hello' }] },
  'a system prompt and unicode': {
    system: 'Tu es un assistant. 你好 🌍',
    messages: [{ role: 'user', content: 'Ça va? Ünïcödé ✓' }],
  },
  'tools offered': { tools: [WEATHER], messages: [{ role: 'user', content: 'What is the weather in Paris?' }] },
  'thinking off': { thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'Hello' }] },
  'a tool round trip': {
    tools: [WEATHER],
    messages: [
      { role: 'user', content: 'What is the weather in Paris?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temperature": 21}' }] },
    ],
  },
  'several turns': {
    messages: [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi there.' },
      { role: 'user', content: 'And now?' },
    ],
  },
  'an assistant prefill': {
    messages: [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Sure:' },
    ],
  },
};

for (const [name, conversation] of Object.entries(CONVERSATIONS)) {
  t.test(`count_tokens equals the prompt llama-server tokenizes: ${name}`, async (t) => {
    const counted = await post('/v1/messages/count_tokens', { model: 'qwen3-8b', ...conversation });
    t.equal(counted.status, 200, JSON.stringify(counted.body));
    const sent = await post('/v1/messages', { model: 'qwen3-8b', max_tokens: 60, ...conversation });
    t.equal(sent.status, 200, JSON.stringify(sent.body));
    const usage = sent.body.usage as { input_tokens: number; cache_read_input_tokens: number };
    t.equal(counted.body.input_tokens, usage.input_tokens + usage.cache_read_input_tokens);
  });
}

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'not streamed';
  t.test(`a prefill is continued, and the answer is the continuation only (${how})`, async (t) => {
    for (const dialect of ['messages', 'chat'] as const) {
      const answer = await askRaw(llama.url, llama.key, {
        dialect,
        stream,
        thinking: false,
        messages: [
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Sure:' },
        ],
      });
      t.equal(answer.text, CONTINUATION.join(''), dialect);
    }
  });

  t.test(`max_tokens cuts the answer in every dialect (${how})`, async (t) => {
    const cut: Record<DialectName, string> = {
      chat: 'length',
      messages: 'max_tokens',
      responses: 'incomplete:max_output_tokens',
    };
    for (const [client, ask] of CLIENTS)
      for (const dialect of ['chat', 'messages', 'responses'] as const) {
        const answer = await ask(llama.url, llama.key, { dialect, stream, thinking: false, maxTokens: 2 });
        t.equal(answer.status, 200, JSON.stringify(answer.error));
        t.equal(answer.ended, cut[dialect], `${client}, ${dialect}`);
        t.equal(answer.text, 'Hello world', `${client}, ${dialect}: the two tokens`);
        t.equal(answer.usage?.output, 2, `${client}, ${dialect}: two output tokens`);
      }
  });

  t.test(`a stop sequence ends the text and /v1/messages names it (${how})`, async (t) => {
    for (const [client, ask] of CLIENTS) {
      const messages = await ask(llama.url, llama.key, { dialect: 'messages', stream, stop: ['world', 'zzz'] });
      t.equal(messages.reasoning, SAYS.reasoning, client);
      t.equal(messages.text, 'Hello ', client);
      t.equal(messages.ended, 'stop_sequence', client);
      t.equal(messages.stopSequence, 'world', client);
      const chat = await ask(llama.url, llama.key, { dialect: 'chat', stream, stop: ['world'] });
      t.equal(chat.text, 'Hello ', client);
      t.equal(chat.ended, 'stop', client);
    }
  });

  t.test(`regression: a stop sequence found in the reasoning does not cut it (${how})`, async (t) => {
    const answer = await askRaw(llama.url, llama.key, { dialect: 'messages', stream, stop: ['think'] });
    t.equal(answer.reasoning, SAYS.reasoning, 'the whole reasoning');
    t.equal(answer.text, SAYS.content);
    t.equal(answer.ended, 'end_turn');
    t.equal(answer.stopSequence, null);
  });

  t.test(`a JSON schema reaches llama-server and its grammar enforces it (chat, ${how})`, async (t) => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, sunny: { type: 'boolean' } },
      required: ['city', 'sunny'],
      additionalProperties: false,
    };
    const answer = await askRaw(llama.url, llama.key, {
      dialect: 'chat',
      stream,
      thinking: false,
      maxTokens: 200,
      schema,
    });
    t.equal(answer.status, 200, JSON.stringify(answer.error));
    const parsed = JSON.parse(answer.text) as { city: unknown; sunny: unknown };
    t.equal(typeof parsed.city, 'string');
    t.equal(typeof parsed.sunny, 'boolean');
    t.same(Object.keys(parsed).sort(), ['city', 'sunny']);
  });
}

t.test('a prompt over the context is a 400 in every dialect, before any byte of a stream', async (t) => {
  const long = 'lorem ipsum dolor '.repeat(3000);
  for (const dialect of ['chat', 'messages', 'responses'] as const) {
    for (const stream of [false, true]) {
      const answer = await askRaw(llama.url, llama.key, {
        dialect,
        stream,
        messages: [{ role: 'user', content: long }],
      });
      t.equal(answer.status, 400, `${dialect} ${stream ? 'streamed' : ''}`);
      t.match(JSON.stringify(answer.error), /context/i);
    }
  }
});

t.test('the ledger balances', async (t) => {
  const checked = ledgerCheck(llama.stack);
  t.equal(checked.code, 0, checked.out + checked.err);
});
