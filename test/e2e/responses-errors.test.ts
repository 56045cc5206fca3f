// Every error rule of the responses dialect, in the chat dialect's error shape (spec section 7), driven with plain fetch.
import t, { type Test } from 'tap';
import { stackForFile } from '../kit/file-stack.js';

const stack = await stackForFile(t, {
  yaml: 'server:\n  body_limit_bytes: 2048\nupstream:\n  forward_headers: [x-sim-fault]\n  idle_timeout_ms: 300\n',
});

const MODEL = 'qwen3-8b';
const hello = { model: MODEL, input: 'Hello' };

async function post(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { error: Record<string, unknown> } }> {
  const response = await fetch(`${stack.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error: Record<string, unknown> } };
}

/** The chat dialect's shape; `param` is kept (the spec's responses examples omit it; SDKs read it when present). */
function assertChatError(
  t: Test,
  error: Record<string, unknown>,
  expected: { type: string; code: string | null; param: string | null },
): void {
  t.same(Object.keys(error).sort(), ['code', 'message', 'param', 'type']);
  t.equal(typeof error.message, 'string');
  t.match(error, expected);
}

t.test('400: a missing input is invalid_request_error in the chat shape (spec rule 3)', async (t) => {
  const result = await post({ model: MODEL });
  t.equal(result.status, 400);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param: 'input' });
  t.match(result.body.error.message, /Missing required field 'input'/);
});

t.test('400: malformed JSON, wrong types and out-of-range values name the field', async (t) => {
  const malformed = await post('{"model": ');
  t.equal(malformed.status, 400);
  assertChatError(t, malformed.body.error, { type: 'invalid_request_error', code: null, param: null });
  for (const [body, param] of [
    [{ model: MODEL }, 'input'],
    [{ input: 'x' }, 'model'],
    [{ ...hello, input: 7 }, 'input'],
    [{ ...hello, temperature: 5 }, 'temperature'],
    [{ ...hello, max_output_tokens: -1 }, 'max_output_tokens'],
    [{ ...hello, stream: 'yes' }, 'stream'],
    [
      { ...hello, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] },
      'input[0].content[0].type',
    ],
  ] as const) {
    const result = await post(body);
    t.equal(result.status, 400, param);
    assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param });
  }
});

t.test('404: an unknown model is model_not_found with param model; no other model is used', async (t) => {
  const result = await post({ ...hello, model: 'Qwen/Qwen3-8B' });
  t.equal(result.status, 404);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
});

t.test(
  '400: function tools and function items are refused, pointing to the other endpoints (spec rule 5)',
  async (t) => {
    for (const [body, param] of [
      [
        { ...hello, tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }] },
        'tools[0].type',
      ],
      [{ ...hello, input: [{ type: 'function_call_output', call_id: 'c1', output: 'Sunny' }] }, 'input[0].type'],
    ] as const) {
      const result = await post(body);
      t.equal(result.status, 400);
      assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param });
      t.match(result.body.error.message, /not supported on \/v1\/responses.*\/v1\/chat\/completions or \/v1\/messages/);
    }
  },
);

t.test('400: a search tool says search is not enabled while no search plugin is in the chain', async (t) => {
  for (const type of ['web_search', 'web_search_preview']) {
    const result = await post({ ...hello, tools: [{ type, search_context_size: 'low' }] });
    t.equal(result.status, 400);
    assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param: 'tools[0].type' });
    t.match(result.body.error.message, /Web search is not enabled/);
  }
});

t.test('400: other tool types are refused by name', async (t) => {
  const result = await post({ ...hello, tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] });
  t.equal(result.status, 400);
  t.match(result.body.error.message, /'code_interpreter' is not supported/);
});

t.test(
  '400: previous_response_id, conversation and item references: the client carries the history (spec rule 10)',
  async (t) => {
    for (const [body, param] of [
      [{ ...hello, previous_response_id: 'resp_123' }, 'previous_response_id'],
      [{ ...hello, conversation: 'conv_123' }, 'conversation'],
      [{ ...hello, conversation: { id: 'conv_123' } }, 'conversation'],
      [{ ...hello, input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
    ] as const) {
      const result = await post(body);
      t.equal(result.status, 400, param);
      assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param });
      t.match(result.body.error.message, /stateless.*client carries the history/);
    }
  },
);

t.test('413: a body over the limit, in the chat shape', async (t) => {
  const result = await post({ ...hello, input: 'x'.repeat(5000) });
  t.equal(result.status, 413);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: 'request_too_large', param: null });
});

t.test('5xx: an upstream 500 becomes a 502 server_error, before any stream starts', async (t) => {
  for (const stream of [false, true]) {
    const result = await post({ ...hello, stream }, { 'x-sim-fault': '500' });
    t.equal(result.status, 502);
    assertChatError(t, result.body.error, { type: 'server_error', code: 'upstream_error', param: null });
  }
});

for (const wire of ['spec', 'openai'] as const) {
  t.test(
    `[${wire}] after the first byte, an upstream cut is an error event, response.failed, and then the end of the stream`,
    async (t) => {
      const response = await fetch(`${stack.baseURL}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sim-fault': 'cut:3', 'x-gateway-wire': wire },
        body: JSON.stringify({ ...hello, stream: true }),
      });
      t.equal(response.status, 200);
      const frames = (await response.text()).trim().split('\n\n');
      t.match(frames[0], /^event: response\.created\n/);
      const [error, failed] = frames.slice(-2);
      t.match(error, /^event: error\ndata: /);
      const data = JSON.parse(error!.split('\n')[1]!.slice(6)) as Record<string, unknown>;
      t.match(data, {
        type: 'error',
        code: 'upstream_stream_cut',
        error: { type: 'server_error', code: 'upstream_stream_cut' },
      });
      t.equal(data.sequence_number, frames.length - 2);
      t.match(failed, /^event: response\.failed\ndata: .*"status":"failed"/s);
      t.notOk(frames.some((frame) => frame.startsWith('event: response.completed')));
    },
  );
}

t.test(
  'after the first byte, an upstream stall is an error event (timeout), response.failed, and then the end',
  async (t) => {
    const response = await fetch(`${stack.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sim-fault': 'stall:2' },
      body: JSON.stringify({ ...hello, stream: true }),
    });
    const frames = (await response.text()).trim().split('\n\n');
    t.match(frames.at(-2), /^event: error\n.*"code":"upstream_timeout"/s);
    t.match(frames.at(-1), /^event: response\.failed\n.*"code":"upstream_timeout"/s);
  },
);
