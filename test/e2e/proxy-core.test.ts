// The proxy core end to end: health, models, request ids, what the upstream sees, disconnects, the plugin chain.
import { join } from 'node:path';
import OpenAI from 'openai';
import t from 'tap';
import { scrape, sumOf } from '../helpers/prometheus-text.js';
import { startStack, type Stack } from '../helpers/stack.js';

const tagPlugin = join(process.cwd(), 'test/fixtures/tag-plugin.mjs');
let stack: Stack;
t.before(async () => {
  stack = await startStack({
    // The tag plugin adds `metadata_tags` to the request; the operator lets it reach the upstream.
    yaml: `upstream:\n  api_key: upstream-secret\n  forward_headers: [x-sim-itl-ms, x-sim-output-tokens, x-sim-fault]\n  extra_fields: [metadata_tags]\nplugins:\n  - path: ${tagPlugin}\n    options: { tag: one }\n  - path: ${tagPlugin}\n    options: { tag: two }\n`,
    sim: { apiKey: 'upstream-secret', maxModelLen: 1_000_000 },
    env: { GATEWAY_METRICS_PORT: '0' },
  });
});
t.teardown(() => stack.close());

const hello = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hello' }] };
const post = (body: unknown, headers: Record<string, string> = {}, path = '/v1/chat/completions'): Promise<Response> =>
  fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Once the gateway's gauge of streams paused for their client reads `count` (scraped until it does). */
async function waitingForClient(count: number): Promise<void> {
  while (sumOf(await scrape(stack.gateway.metricsUrl!), 'gateway_streams_waiting_for_client') !== count);
}

t.test('GET /health answers 200 when the gateway is ready', async (t) => {
  const response = await fetch(`${stack.gateway.url}/health`);
  t.equal(response.status, 200);
  t.same(await response.json(), { status: 'ok' });
});

t.test('GET /v1/models lists the one public model in the shape both SDKs read, with its limits', async (t) => {
  const { models, ...body } = (await (await fetch(`${stack.gateway.url}/v1/models`)).json()) as Record<string, unknown>;
  t.match(models, [{ slug: 'qwen3-8b', context_window: Number }], "Codex's model metadata beside the list");
  t.same(body, {
    object: 'list',
    data: [
      {
        id: 'qwen3-8b',
        object: 'model',
        type: 'model',
        created: 1745971200,
        created_at: '2025-04-30T00:00:00.000Z',
        owned_by: 'gateway',
        display_name: 'Qwen3 8B',
        max_input_tokens: 1_000_000,
        max_tokens: 8000,
      },
    ],
    has_more: false,
    first_id: 'qwen3-8b',
    last_id: 'qwen3-8b',
  });
  const listed = await new OpenAI({ apiKey: 'k', baseURL: stack.baseURL }).models.list();
  t.same(
    listed.data.map((model) => model.id),
    ['qwen3-8b'],
  );
});

t.test('every response carries a request id, and the upstream gets the same id', async (t) => {
  const response = await post(hello);
  const id = response.headers.get('x-request-id');
  t.match(id, /^[0-9a-f]{24}$/);
  t.equal(((await response.json()) as { id: string }).id, `chatcmpl-${id}`);
  t.ok(stack.sim.requests().some((request) => request.headers['x-request-id'] === id));
});

t.test("the upstream gets its served model name and the configured key, never the client's key", async (t) => {
  const response = await post(hello, { authorization: 'Bearer sk-client-secret', 'x-api-key': 'sk-client-secret' });
  t.equal(response.status, 200);
  const id = response.headers.get('x-request-id');
  const seen = stack.sim.requests().find((request) => request.headers['x-request-id'] === id)!;
  t.equal((seen.body as { model: string }).model, 'Qwen/Qwen3-8B');
  t.equal(seen.headers.authorization, 'Bearer upstream-secret');
  t.notOk(JSON.stringify(seen.headers).includes('sk-client-secret'));
  t.notOk(stack.logs.join('\n').includes('sk-client-secret'), 'no log line shows a key');
  t.notOk(stack.logs.join('\n').includes('upstream-secret'));
});

t.test('the client never sees the upstream model name, in bodies or streams', async (t) => {
  const body = await (await post(hello)).text();
  const stream = await (await post({ ...hello, stream: true, stream_options: { include_usage: true } })).text();
  t.notOk(body.includes('Qwen/Qwen3-8B'));
  t.notOk(stream.includes('Qwen/Qwen3-8B'));
});

t.test('a streamed answer leaves chunk by chunk, not buffered', async (t) => {
  // The upstream sends three chunks and then nothing until the client leaves: a gateway that waited
  // for the end of the stream would never pass the first one on.
  const response = await post({ ...hello, stream: true }, { 'x-sim-fault': 'stall:3' });
  const reader = response.body!.getReader();
  const first = await reader.read();
  t.match(
    new TextDecoder().decode(first.value),
    /"object":"chat\.completion\.chunk"/,
    'the client has the first chunk',
  );
  t.equal(stack.sim.stats().inFlight, 1, 'while the upstream stream has not ended');
  await reader.cancel();
  await stack.sim.until((stats) => stats.inFlight === 0);
});

t.test("a client that stops reading holds the upstream back (backpressure), not the gateway's memory", async (t) => {
  // 200,000 tokens are about 45 MB of SSE; socket buffers on loopback hold a few MB.
  const response = await post({ ...hello, stream: true }, { 'x-sim-output-tokens': '200000' });
  const reader = response.body!.getReader();
  await reader.read();
  // The gateway pauses the stream for the client's 'drain' (a gateway that buffered never would, and
  // tap's timeout would fail the test), and the upstream then waits for 'drain' in turn.
  await waitingForClient(1);
  const { bytesSent, inFlight } = await stack.sim.until((stats) => stats.waitingForDrain === 1);
  t.ok(bytesSent < 20_000_000, `the upstream was held back after ${(bytesSent / 1e6).toFixed(1)} MB of about 45 MB`);
  t.equal(inFlight, 1, 'and has not finished');
  await reader.cancel();
  await stack.sim.until((stats) => stats.inFlight === 0);
  await waitingForClient(0);
});

t.test('a client that disconnects aborts the upstream request', async (t) => {
  const before = stack.sim.stats().aborted;
  const response = await post({ ...hello, stream: true }, { 'x-sim-itl-ms': '50', 'x-sim-output-tokens': '200' });
  const reader = response.body!.getReader();
  await reader.read();
  await reader.cancel();
  const after = await stack.sim.until((stats) => stats.inFlight === 0);
  t.equal(after.aborted, before + 1);
});

t.test('the plugin chain from the YAML runs in order on every request', async (t) => {
  const response = await post(hello);
  t.equal(response.headers.get('x-tags'), 'one,two');
  const id = response.headers.get('x-request-id');
  const seen = stack.sim.requests().find((request) => request.headers['x-request-id'] === id)!;
  t.same((seen.body as { metadata_tags: string[] }).metadata_tags, ['one', 'two']);
  t.equal(
    (await fetch(`${stack.gateway.url}/v1/models`)).headers.get('x-tags'),
    'one,two',
    'request hooks run on every API route',
  );
});

t.test("an empty object on every generation endpoint is a 400 in that endpoint's dialect, never a 500", async (t) => {
  for (const path of ['/v1/chat/completions', '/v1/responses']) {
    const response = await post({}, {}, path);
    t.equal(response.status, 400, path);
    t.match(
      ((await response.json()) as { error: unknown }).error,
      { type: 'invalid_request_error', param: 'model' },
      path,
    );
  }
  for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
    const response = await post({}, {}, path);
    t.equal(response.status, 400, path);
    t.match(await response.json(), { type: 'error', error: { type: 'invalid_request_error' } }, path);
  }
});
