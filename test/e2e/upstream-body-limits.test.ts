// What the gateway reads of an upstream answer that is not streamed is bounded (issue #13, bounded
// parsing): an error body is read up to 64 KB, a completion up to `upstream.max_body_bytes`; past that
// the request is aborted, so the upstream cannot make the gateway hold what it sends. A tiny upstream
// here writes a huge body with backpressure, which shows how far it got.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { writeHugeBody, type Written } from '../helpers/huge-body.js';
import { startStack, type Stack } from '../helpers/stack.js';

const MB = 1024 * 1024;
const MAX_BODY_BYTES = MB;

/** What the upstream answers next, and how much of it it could write before the gateway hung up. */
let next: { status: number; bytes: number } = { status: 200, bytes: 0 };
let written: Promise<Written>;
let upstream: Server;
let stack: Stack;

t.before(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    written = writeHugeBody(res, next.status, next.bytes);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  stack = await startStack({
    yaml: `upstream:\n  max_body_bytes: ${MAX_BODY_BYTES}\n  retries: 0\n`,
    upstreamUrls: [`http://127.0.0.1:${port}/v1`],
  });
});
t.teardown(async () => {
  await stack.close();
  await new Promise((resolve) => upstream.close(resolve));
});

async function chat(): Promise<{ status: number; json: { error: { message: string; code: string } } }> {
  const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, json: (await response.json()) as { error: { message: string; code: string } } };
}

t.test(
  'regression: an upstream error body of 50 MB gets the dialect error, and the gateway stops reading it',
  async (t) => {
    next = { status: 500, bytes: 50 * MB };
    const answer = await chat();
    t.equal(answer.status, 502);
    t.equal(answer.json.error.code, 'upstream_error');
    t.equal(answer.json.error.message, 'The model server answered 500.');
    const upstreamSide = await written;
    t.notOk(upstreamSide.whole, 'the upstream could not write it all');
    t.ok(upstreamSide.bytes < 50 * MB, `it wrote ${upstreamSide.bytes} bytes before the gateway hung up`);
  },
);

t.test('a non-streamed completion past upstream.max_body_bytes is a 502, and is not read to its end', async (t) => {
  next = { status: 200, bytes: 20 * MAX_BODY_BYTES };
  const answer = await chat();
  t.equal(answer.status, 502);
  t.equal(answer.json.error.code, 'upstream_bad_response');
  t.equal(answer.json.error.message, `The model server's answer exceeds ${MAX_BODY_BYTES} bytes.`);
  const upstreamSide = await written;
  t.notOk(upstreamSide.whole);
  t.ok(upstreamSide.bytes < 20 * MAX_BODY_BYTES, `it wrote ${upstreamSide.bytes} bytes before the gateway hung up`);
});
