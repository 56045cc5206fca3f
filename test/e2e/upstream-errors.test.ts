// Upstream error text is never shown verbatim: a refusal (400/413/422) becomes the gateway's own 400 in
// the caller's dialect, with a generic reason when the server's wording is recognised; the original,
// truncated, goes to the log at warn with the request id. A tiny upstream here answers what the test says.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

/** What the fake upstream answers next: a status and a body. */
let next: { status: number; body: string; headers?: Record<string, string> } = { status: 400, body: '{}' };
let upstream: Server;
let stack: Stack;

t.before(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body),
    );
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  stack = await startStack({ upstreamUrls: [`http://127.0.0.1:${port}/v1`] });
});
t.teardown(async () => {
  await stack.close();
  await new Promise((resolve) => upstream.close(resolve));
});

const LEAKY = JSON.stringify({
  object: 'error',
  message:
    "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens. Model Qwen/Qwen3-8B-Instruct-AWQ at http://10.0.3.7:8000/v1 " +
    'Traceback (most recent call last):\n  File "/opt/vllm/venv/lib/python3.12/site-packages/vllm/entrypoints/openai/serving_chat.py", line 212, in create_chat_completion\nValueError',
  type: 'BadRequestError',
  param: null,
  code: 400,
});
const SECRETS = ['Traceback', 'http://', '10.0.3.7', '/opt/vllm', 'serving_chat.py', 'Qwen', '40000', 'ValueError'];

const routes = [
  {
    dialect: 'chat',
    path: '/v1/chat/completions',
    body: { model: 'qwen3-8b', messages: [{ role: 'user', content: 'hi' }] },
  },
  {
    dialect: 'messages',
    path: '/v1/messages',
    body: { model: 'qwen3-8b', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
  },
  { dialect: 'responses', path: '/v1/responses', body: { model: 'qwen3-8b', input: 'hi' } },
] as const;

async function post(
  path: string,
  body: object,
): Promise<{
  status: number;
  id: string | null;
  headers: Headers;
  json: { error: { message: string; type: string } };
}> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    id: response.headers.get('x-request-id'),
    headers: response.headers,
    json: (await response.json()) as { error: { message: string; type: string } },
  };
}

t.test(
  'regression: an upstream 400 whose body has a traceback, a URL, an IP and a path reaches no client; the reason does',
  async (t) => {
    next = { status: 400, body: LEAKY };
    for (const route of routes) {
      for (const stream of [false, true]) {
        const name = `${route.dialect}, ${stream ? 'stream' : 'body'}`;
        const result = await post(route.path, { ...route.body, stream });
        t.equal(result.status, 400, name);
        t.equal(result.json.error.type, 'invalid_request_error', `${name}: in the dialect`);
        t.equal(result.json.error.message, 'The model server rejected the request: context length exceeded.', name);
        for (const secret of SECRETS) t.notOk(JSON.stringify(result.json).includes(secret), `${name}: no '${secret}'`);
        const logged = stack.logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((line) => line.requestId === result.id && line.level === 40);
        t.match(
          logged,
          { upstreamStatus: 400, upstreamError: /10\.0\.3\.7.*Traceback/s },
          `${name}: the original is in the log at warn, with the request id`,
        );
      }
    }
  },
);

t.test(
  '413 and 422 map to 400 too; an unrecognised refusal gets no reason, and a body that is not JSON is not echoed',
  async (t) => {
    for (const [status, body, message] of [
      [
        422,
        '{"detail":[{"loc":["body","temperature"],"msg":"Input should be less than or equal to 2"}]}',
        'The model server rejected the request: a sampling parameter out of range.',
      ],
      [413, '<html>nginx at 192.168.1.1</html>', 'The model server rejected the request: request too large.'],
      [
        400,
        '{"error":{"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","code":400}}',
        'The model server rejected the request: context length exceeded.',
      ],
      [400, '{"error":"something odd at /srv/app.py"}', 'The model server rejected the request.'],
    ] as const) {
      next = { status, body };
      const result = await post('/v1/chat/completions', routes[0].body);
      t.equal(result.status, 400, `${status}`);
      t.equal(result.json.error.message, message);
    }
  },
);

t.test(
  "an upstream 503 is 503 upstream_overloaded with retry-after (the upstream's own, when it gives one)",
  async (t) => {
    next = { status: 503, body: '{"error":"busy at 10.0.0.1"}', headers: { 'retry-after': '7' } };
    const result = await post('/v1/chat/completions', routes[0].body);
    t.equal(result.status, 503);
    t.equal(result.headers.get('retry-after'), '7');
    t.notOk(result.json.error.message.includes('10.0.0.1'));
    next = { status: 503, body: '{}' };
    t.equal((await post('/v1/messages', routes[1].body)).headers.get('retry-after'), '1', 'else one second');
  },
);
