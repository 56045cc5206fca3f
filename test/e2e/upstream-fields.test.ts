// The upstream gets only what the gateway decides: the fields its flavor honours (vllm here, the sim's),
// the operator's `upstream.extra_fields`, the served model name and the gateway's own stream_options.
import t, { type Test } from 'tap';
import type { RecordedRequest } from '../../sim/request-log.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({ yaml: 'upstream:\n  extra_fields: [min_p]\n' });
});
t.teardown(() => stack.close());

const hello = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] };

/** Sends a request and returns the body the sim received for it (found by its request id). */
async function upstreamBodyOf(t: Test, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  t.equal(response.status, 200);
  await response.arrayBuffer();
  const id = response.headers.get('x-request-id');
  const received = stack.sim
    .requests()
    .find(
      (request: RecordedRequest) => request.path === '/v1/chat/completions' && request.headers['x-request-id'] === id,
    );
  return received?.body as Record<string, unknown>;
}

t.test(
  'regression: chat_template, ignore_eos, min_tokens, guided_json and vllm_xargs sent by a client never reach the upstream',
  async (t) => {
    const smuggled = {
      chat_template: '{{ "pwned" }}',
      ignore_eos: true,
      min_tokens: 30000,
      guided_json: { type: 'object' },
      vllm_xargs: { anything: 1 },
      logit_bias: { '151645': -100 },
      input_ids: [1, 2, 3],
      chat_template_kwargs: { enable_thinking: true },
    };
    for (const stream of [false, true]) {
      const received = await upstreamBodyOf(t, '/v1/chat/completions', {
        ...hello,
        ...smuggled,
        stream,
        temperature: 0.5,
        seed: 7,
        user: 'u1',
      });
      t.ok(received, 'the upstream got the request');
      for (const field of Object.keys(smuggled))
        t.notOk(field in received, `${field} stays at the gateway (${stream ? 'stream' : 'body'})`);
      t.match(
        received,
        { model: 'Qwen/Qwen3-8B', temperature: 0.5, seed: 7, user: 'u1' },
        'the fields vLLM honours go up, under its own model name',
      );
    }
  },
);

t.test('the OpenAI fields the flavor honours go up unchanged', async (t) => {
  const tools = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
  ];
  const fields = {
    max_tokens: 50,
    temperature: 0.2,
    top_p: 0.9,
    stop: ['zzz'],
    seed: 1,
    presence_penalty: 0.1,
    frequency_penalty: 0.1,
    tools,
    tool_choice: 'auto',
    parallel_tool_calls: false,
    logprobs: false,
    n: 1,
    user: 'me',
  };
  const received = await upstreamBodyOf(t, '/v1/chat/completions', { ...hello, ...fields });
  t.match(received, fields);
});

t.test(
  'an operator-enabled extra field (upstream.extra_fields) goes up; the client alone cannot add one',
  async (t) => {
    const received = await upstreamBodyOf(t, '/v1/chat/completions', {
      ...hello,
      min_p: 0.05,
      repetition_penalty: 1.3,
    });
    t.equal(received.min_p, 0.05);
    t.notOk('repetition_penalty' in received);
  },
);

t.test(
  'streams always ask vLLM for the usage and the running usage, whatever the client sent in stream_options',
  async (t) => {
    const received = await upstreamBodyOf(t, '/v1/chat/completions', {
      ...hello,
      stream: true,
      stream_options: { include_usage: false, evil: 1 },
    });
    t.same(received.stream_options, { include_usage: true, continuous_usage_stats: true });
  },
);

t.test(
  'a non-streamed request reaches vLLM as a stream with its running usage (the answer stays one body)',
  async (t) => {
    const plain = await upstreamBodyOf(t, '/v1/chat/completions', { ...hello, stream: false });
    t.equal(plain.stream, true);
    t.same(plain.stream_options, { include_usage: true, continuous_usage_stats: true });
  },
);

t.test("the message dialect's top_k and running usage reach vLLM", async (t) => {
  const received = await upstreamBodyOf(t, '/v1/messages', {
    model: 'qwen3-8b',
    max_tokens: 20,
    top_k: 5,
    stream: true,
    messages: [{ role: 'user', content: 'echo: hi' }],
  });
  t.equal(received.top_k, 5);
  t.same(received.stream_options, { include_usage: true, continuous_usage_stats: true });
});
