// A prefill (the conversation ends with the assistant's words) with Anthropic's semantics: the answer is the
// continuation only, and count_tokens counts the prompt the server really gets, the last turn left open.
// In front of the sim (vLLM: continue_final_message, no echo), and of a server that answers as llama-server
// does (the prefill repeated at the start of the answer, recorded from it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { RecordedRequest } from '../../sim/request-log.js';
import { CONTINUATION, ECHOED_COMPLETION, ECHOED_STREAM, PREFILL, sseText } from '../fixtures/llama-server-prefill.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { sseJson } from '../kit/sse-reader.js';

const MODEL = 'qwen3-8b';
/** The sim answers "echo: …" with the rest of the line; it continues the prefill, and never repeats it. */
const conversation = [
  { role: 'user', content: 'echo: Paris, of course.' },
  { role: 'assistant', content: 'The capital of France is' },
];

async function post(stack: Stack, path: string, body: object): Promise<Response> {
  return fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
}

interface Message {
  content: Array<{ type: string; text?: string }>;
  usage: { input_tokens: number; cache_read_input_tokens?: number };
}

/** A JSON answer, typed as the test reads it. */
async function jsonOf<T>(response: Promise<Response>): Promise<T> {
  return (await (await response).json()) as T;
}

/** The text of a streamed message: its text_delta events, joined. */
function streamedText(sse: string): string {
  let text = '';
  for (const event of sseJson<{ type?: string; delta?: { type?: string; text?: string } }>(sse)) {
    if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') text += event.delta.text ?? '';
  }
  return text;
}

/** The text of a streamed chat completion: its content deltas, joined. */
function streamedChatText(sse: string): string {
  let text = '';
  for (const chunk of sseJson<{ choices?: Array<{ delta?: { content?: string | null } }> }>(sse)) {
    for (const choice of chunk.choices ?? []) text += choice.delta?.content ?? '';
  }
  return text;
}

function messageText(body: Message): string {
  return body.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

t.test('in front of vLLM (the sim)', async (t) => {
  const stack = await startStack();
  t.teardown(() => stack.close());
  const upstreamBody = (id: string | null): Record<string, unknown> | undefined =>
    stack.sim
      .requests()
      .find(
        (request: RecordedRequest) => request.path === '/v1/chat/completions' && request.headers['x-request-id'] === id,
      )?.body as Record<string, unknown> | undefined;

  t.test('the upstream is asked to continue the last turn: continue_final_message, no generation prompt', async (t) => {
    for (const [path, body] of [
      ['/v1/messages', { model: MODEL, max_tokens: 50, messages: conversation }],
      ['/v1/chat/completions', { model: MODEL, messages: conversation }],
    ] as const) {
      const response = await post(stack, path, body);
      t.equal(response.status, 200, path);
      await response.arrayBuffer();
      t.match(upstreamBody(response.headers.get('x-request-id')), {
        continue_final_message: true,
        add_generation_prompt: false,
        messages: conversation,
      });
      t.notOk('prefill' in (upstreamBody(response.headers.get('x-request-id')) ?? {}), 'the gateway field stays here');
    }
    const plain = await post(stack, '/v1/messages', {
      model: MODEL,
      max_tokens: 50,
      messages: conversation.slice(0, 1),
    });
    await plain.arrayBuffer();
    t.notOk(
      'continue_final_message' in (upstreamBody(plain.headers.get('x-request-id')) ?? {}),
      'no prefill: a new turn',
    );
  });

  t.test('the answer is the continuation only, streamed and not, on /v1/messages and chat', async (t) => {
    const body = await jsonOf<Message>(
      post(stack, '/v1/messages', { model: MODEL, max_tokens: 50, messages: conversation }),
    );
    t.equal(messageText(body), 'Paris, of course.');
    const stream = await post(stack, '/v1/messages', {
      model: MODEL,
      max_tokens: 50,
      stream: true,
      messages: conversation,
    });
    t.equal(streamedText(await stream.text()), 'Paris, of course.');
    const chat = await jsonOf<{ choices: Array<{ message: { content: string | null } }> }>(
      post(stack, '/v1/chat/completions', { model: MODEL, messages: conversation }),
    );
    t.equal(chat.choices[0]?.message.content, 'Paris, of course.');
    const chatStream = await post(stack, '/v1/chat/completions', {
      model: MODEL,
      stream: true,
      messages: conversation,
    });
    t.equal(streamedChatText(await chatStream.text()), 'Paris, of course.');
  });

  t.test('count_tokens of a prefill equals the prompt tokens of the call', async (t) => {
    const count = (messages: object[]): Promise<{ input_tokens: number }> =>
      jsonOf(post(stack, '/v1/messages/count_tokens', { model: MODEL, messages }));
    const counted = await count(conversation);
    const { usage } = await jsonOf<Message>(
      post(stack, '/v1/messages', { model: MODEL, max_tokens: 5, messages: conversation }),
    );
    t.equal(counted.input_tokens, usage.input_tokens + (usage.cache_read_input_tokens ?? 0));
    const asked = await count([...conversation, { role: 'user', content: 'More?' }]);
    t.ok(asked.input_tokens > counted.input_tokens, 'a closed turn and a new question count more');
  });
});

t.test('regression: a prefill is not echoed back on llama-server', async (t) => {
  const received: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const json = (status: number, body: unknown): void =>
        void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && req.url === '/props')
        return json(200, { default_generation_settings: { n_ctx: 4096 }, total_slots: 1, build_info: 'b1-de3ff81' });
      if (req.method === 'GET' && req.url === '/health') return json(200, { status: 'ok' });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return json(404, { error: { code: 404 } });
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push(body);
      if (body.stream !== true) return json(200, ECHOED_COMPLETION);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sseText(ECHOED_STREAM));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const stack = await startStack({
    upstreamUrls: [url],
    yaml: 'upstream:\n  flavor: llama-server\nmodel:\n  max_context_tokens: 4096\n',
  });
  t.teardown(async () => {
    await stack.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const messages = [
    { role: 'user', content: 'Hello' },
    { role: 'assistant', content: PREFILL },
  ];

  const body = await jsonOf<Message>(post(stack, '/v1/messages', { model: MODEL, max_tokens: 50, messages }));
  t.equal(messageText(body), CONTINUATION, 'not streamed');
  const stream = await post(stack, '/v1/messages', { model: MODEL, max_tokens: 50, stream: true, messages });
  t.equal(streamedText(await stream.text()), CONTINUATION, 'streamed');
  const chat = await post(stack, '/v1/chat/completions', { model: MODEL, stream: true, messages });
  t.equal(streamedChatText(await chat.text()), CONTINUATION, 'chat, streamed');
  t.equal(received.length, 3);
  for (const upstream of received) {
    t.notOk('continue_final_message' in upstream, 'llama-server continues it unasked');
    t.notOk('prefill' in upstream);
  }
});
