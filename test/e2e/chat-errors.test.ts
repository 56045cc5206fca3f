// Every error status of the chat dialect, with its body shape (spec section 7), driven with plain fetch.
import t, { type Test } from 'tap';
import { stackForFile } from '../kit/file-stack.js';

const stack = await stackForFile(t, {
  yaml: 'server:\n  body_limit_bytes: 2048\nupstream:\n  forward_headers: [x-sim-fault, x-sim-ttft-ms]\n  idle_timeout_ms: 300\n  first_byte_timeout_ms: 300\n',
});

const MODEL = 'qwen3-8b';
const hello = { model: MODEL, messages: [{ role: 'user', content: 'Hello' }] };

async function post(
  body: unknown,
  headers: Record<string, string> = {},
  path = '/v1/chat/completions',
): Promise<{ status: number; body: { error: Record<string, unknown> }; headers: Headers }> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { error: Record<string, unknown> },
    headers: response.headers,
  };
}

function assertChatError(
  t: Test,
  error: Record<string, unknown>,
  expected: { type: string; code: string | null; param: string | null },
): void {
  t.same(Object.keys(error).sort(), ['code', 'message', 'param', 'type']);
  t.equal(typeof error.message, 'string');
  t.equal(error.type, expected.type);
  t.equal(error.code, expected.code);
  t.equal(error.param, expected.param);
}

t.test('400: malformed JSON is invalid_request_error with code null, never a 500', async (t) => {
  const result = await post('{"model": ');
  t.equal(result.status, 400);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param: null });
  t.match(result.body.error.message, /not valid JSON/);
});

t.test('400: a missing messages field names it (spec rule 2)', async (t) => {
  const result = await post({ model: MODEL });
  t.equal(result.status, 400);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param: 'messages' });
});

t.test('400: wrong types and out-of-range values name the field', async (t) => {
  for (const [body, param] of [
    [{ ...hello, temperature: 'hot' }, 'temperature'],
    [{ ...hello, temperature: 3 }, 'temperature'],
    [{ ...hello, top_p: -1 }, 'top_p'],
    [{ ...hello, max_tokens: -5 }, 'max_tokens'],
    [{ ...hello, messages: [{ role: 'user', content: 42 }] }, 'messages[0].content'],
    [{ ...hello, stream: 1 }, 'stream'],
  ] as const) {
    const result = await post(body);
    t.equal(result.status, 400, param);
    assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param });
  }
});

t.test('400: a search tool on chat completions (spec rule 7)', async (t) => {
  const result = await post({ ...hello, tools: [{ type: 'web_search' }] });
  t.equal(result.status, 400);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: null, param: 'tools[0].type' });
});

t.test('400: an invalid x-gateway-wire header names the header', async (t) => {
  const result = await post(hello, { 'x-gateway-wire': 'fancy' });
  t.equal(result.status, 400);
  t.equal(result.body.error.param, 'x-gateway-wire');
});

t.test('404: an unknown model is model_not_found with param model (spec rule 4)', async (t) => {
  const result = await post({ ...hello, model: 'Qwen/Qwen3-8B' });
  t.equal(result.status, 404);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
  t.equal(
    stack.sim
      .requests()
      .filter(
        (request) =>
          (request.body as { model?: string } | undefined)?.model === 'Qwen/Qwen3-8B' &&
          request.headers['x-request-id'] === result.headers.get('x-request-id'),
      ).length,
    0,
    'no other model is substituted',
  );
});

t.test('404 and 405: unknown paths and methods answer in the chat shape', async (t) => {
  const missing = await fetch(`${stack.gateway.url}/v1/nothing`);
  t.equal(missing.status, 404);
  t.equal(((await missing.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
  const wrongMethod = await fetch(`${stack.gateway.url}/v1/chat/completions`);
  t.equal(wrongMethod.status, 405);
});

t.test('413: a body over the limit, in the chat shape', async (t) => {
  const result = await post({ ...hello, messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
  t.equal(result.status, 413);
  assertChatError(t, result.body.error, { type: 'invalid_request_error', code: 'request_too_large', param: null });
});

t.test('5xx: an upstream 500 becomes a 502 server_error; the gateway stays up', async (t) => {
  const result = await post(hello, { 'x-sim-fault': '500' });
  t.equal(result.status, 502);
  assertChatError(t, result.body.error, { type: 'server_error', code: 'upstream_error', param: null });
  t.equal((await post(hello)).status, 200);
});

t.test('5xx: an overloaded upstream (503) becomes a 503', async (t) => {
  const result = await post(hello, { 'x-sim-fault': '503' });
  t.equal(result.status, 503);
  assertChatError(t, result.body.error, { type: 'server_error', code: 'upstream_overloaded', param: null });
});

t.test('5xx: an upstream that does not answer in time becomes a 504', async (t) => {
  const result = await post(hello, { 'x-sim-ttft-ms': '2000' });
  t.equal(result.status, 504);
  assertChatError(t, result.body.error, { type: 'server_error', code: 'upstream_timeout', param: null });
});

t.test('after the first byte, an upstream cut is an error event and then the end of the stream', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sim-fault': 'cut:3' },
    body: JSON.stringify({ ...hello, stream: true }),
  });
  t.equal(response.status, 200);
  const text = await response.text();
  const frames = text.trim().split('\n\n');
  t.match(
    frames.at(-1),
    /^event: error\ndata: \{"error":\{"message":".*","type":"server_error","code":"upstream_stream_cut","param":null\}\}$/,
  );
  t.notOk(text.includes('message_stop'));
});

t.test('after the first byte, an upstream stall is an error event (timeout) and then the end', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sim-fault': 'stall:2', 'x-gateway-wire': 'openai' },
    body: JSON.stringify({ ...hello, stream: true }),
  });
  const frames = (await response.text()).trim().split('\n\n');
  t.match(frames.at(-1), /"code":"upstream_timeout"/);
  t.notOk(frames.includes('data: [DONE]'));
});
