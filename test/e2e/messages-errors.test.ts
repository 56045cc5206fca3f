// Every error status of the message dialect with its body shape: {type:'error', error:{type, message}} (spec section 7).
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({
    // A non-streamed request reaches vLLM as a stream, whose head comes at once: the wait for its first token is the idle timeout's.
    yaml: 'server:\n  body_limit_bytes: 2048\nupstream:\n  forward_headers: [x-sim-fault, x-sim-ttft-ms]\n  first_byte_timeout_ms: 300\n  idle_timeout_ms: 300\n',
  });
});
t.teardown(() => stack.close());

const hello = { model: 'qwen3-8b', max_tokens: 50, messages: [{ role: 'user', content: 'Hello' }] };

async function post(
  body: unknown,
  headers: Record<string, string> = {},
  path = '/v1/messages',
): Promise<{ status: number; body: { type: string; error: { type: string; message: string } } }> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { type: string; error: { type: string; message: string } },
  };
}

for (const [name, body, headers, status, type] of [
  [
    'a missing max_tokens (spec rule 1)',
    { model: 'qwen3-8b', messages: hello.messages },
    {},
    400,
    'invalid_request_error',
  ],
  ['malformed JSON', '{"model":', {}, 400, 'invalid_request_error'],
  ['a wrong type', { ...hello, messages: 'hi' }, {}, 400, 'invalid_request_error'],
  [
    'the web search server tool while search is not enabled',
    { ...hello, tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
    {},
    400,
    'invalid_request_error',
  ],
  [
    'another server tool (rule 6)',
    { ...hello, tools: [{ type: 'code_execution_20250522', name: 'code_execution' }] },
    {},
    400,
    'invalid_request_error',
  ],
  ['an unknown model', { ...hello, model: 'claude-opus-4' }, {}, 404, 'not_found_error'],
  [
    'a body over the limit',
    { ...hello, messages: [{ role: 'user', content: 'x'.repeat(5000) }] },
    {},
    413,
    'request_too_large',
  ],
  ['an upstream 500', hello, { 'x-sim-fault': '500' }, 502, 'api_error'],
  ['an overloaded upstream', hello, { 'x-sim-fault': '503' }, 503, 'overloaded_error'],
  ['an upstream that does not answer in time', hello, { 'x-sim-ttft-ms': '2000' }, 504, 'api_error'],
] as const) {
  t.test(`${status}: ${name} is ${type}`, async (t) => {
    const result = await post(body, headers);
    t.equal(result.status, status);
    t.equal(result.body.type, 'error');
    t.same(Object.keys(result.body.error).sort(), ['message', 'type']);
    t.equal(result.body.error.type, type);
    t.ok(result.body.error.message.length > 0);
  });
}

t.test('the ?beta=true query and any anthropic-version or anthropic-beta header are tolerated', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2099-01-01',
      'anthropic-beta': 'whatever-2025',
    },
    body: JSON.stringify(hello),
  });
  t.equal(response.status, 200);
});

t.test('after the first byte, an upstream cut is an error event, and nothing follows it', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sim-fault': 'cut:3' },
    body: JSON.stringify({ ...hello, stream: true }),
  });
  const frames = (await response.text()).trim().split('\n\n');
  t.match(frames[0], /^event: message_start/);
  t.match(frames.at(-1), /^event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":".+"\}\}$/);
  t.notOk(frames.some((frame) => frame.startsWith('event: message_stop')));
});

t.test('count_tokens answers in the message dialect too', async (t) => {
  const result = await post(
    { model: 'qwen3-8b', messages: hello.messages, max_tokens: 5 },
    {},
    '/v1/messages/count_tokens',
  );
  t.equal(result.status, 400);
  t.equal(result.body.error.type, 'invalid_request_error');
});
