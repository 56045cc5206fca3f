// In front of llama-server `--reasoning-format none` (no reasoning parser) the model's raw <think>…</think>
// arrives inside `content`; every dialect still shows a thinking block / reasoning item, as with a parser
// (upstream.reasoning_tags, proxy/upstream/reasoning-tags.ts). The answers are llama-server's, recorded
// from the tiny Qwen3 of the upstream tier (I6 of shared/research/real-upstream-llama.md).
import t, { type Test } from 'tap';
import { startScriptedStack } from '../helpers/scripted-stack.js';
import { readSse } from '../kit/sse-reader.js';
import type { Stack } from '../helpers/stack.js';
import { llamaBody, llamaStream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const THINKING_TOKENS = ['<think>', 'Let', ' me', ' think', '.', '</think>', '\n\n', '\n', 'Hello', ' world', '!'];
/** With thinking off llama-server echoes the template's forced empty block into the content. */
const ECHOED = ['<think>\n\n</think>\n\nHello', ' world', '!'];

function start(t: Test, yaml = ''): Promise<{ stack: Stack; upstream: ScriptedUpstream }> {
  return startScriptedStack(
    t,
    (body) => {
      const thinking = (body.chat_template_kwargs as Json | undefined)?.enable_thinking !== false;
      const tokens = thinking ? THINKING_TOKENS : ECHOED;
      const usage: [number, number] = thinking ? [9, 11] : [13, 3];
      return body.stream === true
        ? {
            chunks: llamaStream(
              tokens.map((content) => ({ content })),
              'stop',
              usage,
            ),
          }
        : { body: llamaBody({ content: tokens.join('') }, 'stop', usage) };
    },
    yaml,
  );
}

async function post(stack: Stack, path: string, body: Json, wire = 'spec'): Promise<string> {
  const response = await fetch(`${stack.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-wire': wire },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
  return text;
}

const chat = (stream: boolean, extra: Json = {}): Json => ({
  model: 'qwen3-8b',
  messages: [{ role: 'user', content: 'Hello' }],
  stream,
  ...extra,
});
const messages = (stream: boolean, extra: Json = {}): Json => ({
  model: 'qwen3-8b',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'Hello' }],
  stream,
  ...extra,
});
const responses = (stream: boolean, extra: Json = {}): Json => ({
  model: 'qwen3-8b',
  input: 'Hello',
  stream,
  ...extra,
});

/** A streamed chat answer's reasoning and text, and its chunks. */
function chatStream(text: string): { reasoning: string; content: string; chunks: Json[] } {
  const chunks = readSse(text)
    .filter((frame) => frame.data !== '[DONE]')
    .map((frame) => JSON.parse(frame.data) as Json);
  let reasoning = '';
  let content = '';
  for (const chunk of chunks)
    for (const choice of chunk.choices ?? []) {
      reasoning += choice.delta?.reasoning_content ?? '';
      content += choice.delta?.content ?? '';
    }
  return { reasoning, content, chunks };
}

t.test('chat: the raw reasoning is reasoning_content, streamed (both wire profiles) and not', async (t) => {
  const { stack } = await start(t);
  const body = JSON.parse(await post(stack, '/v1/chat/completions', chat(false))) as Json;
  t.same(body.choices[0].message, { role: 'assistant', content: 'Hello world!', reasoning_content: 'Let me think.' });
  for (const wire of ['spec', 'openai']) {
    const streamed = chatStream(await post(stack, '/v1/chat/completions', chat(true), wire));
    t.equal(streamed.reasoning, 'Let me think.', wire);
    t.equal(streamed.content, 'Hello world!', wire);
  }
});

t.test('messages: a thinking block then the text, streamed and not', async (t) => {
  const { stack } = await start(t);
  const body = JSON.parse(await post(stack, '/v1/messages', messages(false))) as Json;
  t.same(
    body.content.map((block: Json) => [block.type, block.thinking ?? block.text]),
    [
      ['thinking', 'Let me think.'],
      ['text', 'Hello world!'],
    ],
  );
  const events = readSse(await post(stack, '/v1/messages', messages(true))).map(
    (frame) => JSON.parse(frame.data) as Json,
  );
  const blocks = events
    .filter((event) => event.type === 'content_block_start')
    .map((event) => event.content_block.type);
  t.same(blocks, ['thinking', 'text']);
  const deltas = events.filter((event) => event.type === 'content_block_delta').map((event) => event.delta);
  t.equal(deltas.map((delta: Json) => delta.thinking ?? '').join(''), 'Let me think.');
  t.equal(deltas.map((delta: Json) => delta.text ?? '').join(''), 'Hello world!');
});

t.test('responses: a reasoning item then the message, streamed and not', async (t) => {
  const { stack } = await start(t);
  const body = JSON.parse(await post(stack, '/v1/responses', responses(false))) as Json;
  t.same(
    body.output.map((item: Json) => item.type),
    ['reasoning', 'message'],
  );
  t.equal(body.output[0].content[0].text, 'Let me think.');
  t.equal(body.output[1].content[0].text, 'Hello world!');
  const events = readSse(await post(stack, '/v1/responses', responses(true))).map(
    (frame) => JSON.parse(frame.data) as Json,
  );
  const done = events.find((event) => event.type === 'response.completed')!;
  t.same(
    done.response.output.map((item: Json) => [item.type, (item.content ?? [])[0]?.text]),
    [
      ['reasoning', 'Let me think.'],
      ['message', 'Hello world!'],
    ],
  );
});

t.test('thinking off: the echoed empty <think></think> is cut, and no thinking is shown', async (t) => {
  const { stack } = await start(t);
  const off = { thinking: { type: 'disabled' } };
  const body = JSON.parse(await post(stack, '/v1/messages', messages(false, off))) as Json;
  t.same(body.content, [{ type: 'text', text: 'Hello world!' }]);
  const streamed = chatStream(await post(stack, '/v1/chat/completions', chat(true, { enable_thinking: false })));
  t.same([streamed.reasoning, streamed.content], ['', 'Hello world!']);
  const response = JSON.parse(await post(stack, '/v1/responses', responses(false, { reasoning: { effort: 'none' } })));
  t.same(
    response.output.map((item: Json) => [item.type, item.content[0].text]),
    [['message', 'Hello world!']],
  );
});

t.test('reasoning_tags off: the content passes as the server sent it', async (t) => {
  const { stack } = await start(t, '  reasoning_tags: off\n');
  const body = JSON.parse(await post(stack, '/v1/chat/completions', chat(false))) as Json;
  t.same(body.choices[0].message, { role: 'assistant', content: '<think>Let me think.</think>\n\n\nHello world!' });
});
