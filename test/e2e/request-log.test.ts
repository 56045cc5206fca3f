// The request log: one JSON line per request, whatever its fate, with the caller's org and key ids and never a key.
import t from 'tap';
import { requestLine, startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let key: string;
let keyId: string;
let orgId: string;
t.before(async () => {
  stack = await startStack({ yaml: 'plugins:\n  - name: auth\n' });
  const store = await stack.store();
  orgId = (await store.orgs.create('acme')).id;
  const created = await store.keys.create('acme', 'tests');
  key = created.key;
  keyId = created.record.id;
});
t.teardown(() => stack.close());

const hello = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] };

/** The request lines logged for a request id, once the first is there. */
async function linesOf(requestId: string | null): Promise<Array<Record<string, unknown>>> {
  await requestLine(stack, requestId);
  return stack.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request' && line.requestId === requestId);
}

t.test('regression: the request line carries the key id, not "[redacted]", and never the key', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(hello),
  });
  t.equal(response.status, 200);
  const lines = await linesOf(response.headers.get('x-request-id'));
  t.equal(lines.length, 1);
  t.match(lines[0], { method: 'POST', path: '/v1/chat/completions', status: 200, org: orgId, key_id: keyId });
  t.notOk(
    stack.logs.some((line) => line.includes(key)),
    'the key itself is in no log line',
  );
});

t.test('regression: unknown paths and wrong methods write exactly one request line each', async (t) => {
  for (const [method, path, status] of [
    ['POST', '/v1/nothing', 404],
    ['HEAD', '/api/hello', 404],
    ['GET', '/v1/chat/completions', 405],
    ['DELETE', '/health', 405],
  ] as const) {
    const response = await fetch(stack.gateway.url + path, { method });
    t.equal(response.status, status, `${method} ${path}`);
    const lines = await linesOf(response.headers.get('x-request-id'));
    t.equal(lines.length, 1, `${method} ${path}: one line`);
    t.match(lines[0], { method, path, status }, `${method} ${path}`);
  }
});

t.test('every answered request writes exactly one line: success, refusal before the body, bad body', async (t) => {
  const cases: Array<[string, RequestInit, number]> = [
    ['/health', {}, 200],
    [
      '/v1/chat/completions',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(hello) },
      401,
    ],
    [
      '/v1/chat/completions',
      {
        method: 'POST',
        headers: { 'content-type': 'text/plain', authorization: `Bearer ${key}` },
        body: JSON.stringify(hello),
      },
      415,
    ],
    [
      '/v1/messages',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: '{"model":',
      },
      400,
    ],
  ];
  for (const [path, init, status] of cases) {
    const response = await fetch(stack.gateway.url + path, init);
    t.equal(response.status, status, path);
    t.equal((await linesOf(response.headers.get('x-request-id'))).length, 1, `${path} ${status}: one line`);
  }
});
