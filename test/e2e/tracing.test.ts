// OpenTelemetry traces (docs/observability.md, "Traces"): a gateway with auth, meter and search in front
// of the sim, exporting over OTLP/HTTP to a receiver on loopback that decodes what it gets. Spans are
// batched for 20 ms (OTEL_BSP_SCHEDULE_DELAY) so the tests wait for them, never for a fixed time.
import t from 'tap';
import WebSocket from 'ws';
import { startOtlpReceiver, SPAN_KIND, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { requestLine, startStack, type Stack } from '../helpers/stack.js';

const MODEL = 'qwen3-8b';
const SERVED = 'Qwen/Qwen3-8B';
const EXPORT_DELAY = { OTEL_BSP_SCHEDULE_DELAY: '20' };
const PLUGINS = `plugins:
  - name: auth
  - name: meter
  - name: search
    options: { provider: local }
`;

let receiver: OtlpReceiver;
let stack: Stack;
let orgs = 0;

t.before(async () => {
  receiver = await startOtlpReceiver();
  stack = await startStack({
    yaml: `tracing:\n  otlp_url: ${receiver.url}\n  service_name: gateway-under-test\n${PLUGINS}`,
    env: EXPORT_DELAY,
  });
});
t.teardown(async () => {
  await stack.close();
  await receiver.close();
});

/** A new organization with credits, and a new key of it (never looked up yet: not in the auth cache). */
async function newKey(on: Stack = stack): Promise<string> {
  const store = await on.store();
  const org = await store.orgs.create(`trace-org-${++orgs}`);
  await store.orgs.addCredits(org.id, 100_000_000);
  return (await store.keys.create(org.id, 'tests')).key;
}

async function post(
  on: Stack,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; id: string; body: Record<string, unknown> }> {
  const response = await fetch(`${on.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    id: response.headers.get('x-request-id') ?? '',
    // A stream's events are read to their end, not parsed.
    body: response.headers.get('content-type')?.startsWith('application/json')
      ? ((await response.json()) as Record<string, unknown>)
      : { events: await response.text() },
  };
}

const chat = (on: Stack, key: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  post(
    on,
    '/v1/chat/completions',
    { model: MODEL, max_tokens: 40, messages: [{ role: 'user', content: 'Hello there' }], ...extra },
    { authorization: `Bearer ${key}`, ...headers },
  );

/** The request span of the request with this id, once exported. */
async function requestSpan(requestId: string): Promise<ReceivedSpan> {
  const spans = await receiver.waitFor((all) =>
    all.some((span) => span.attributes['gateway.request.id'] === requestId),
  );
  return spans.find((span) => span.attributes['gateway.request.id'] === requestId)!;
}

/** The spans under `parent`, once `count` of them named by `named` arrived. */
async function children(
  parent: ReceivedSpan,
  count: number,
  named: (name: string) => boolean,
): Promise<ReceivedSpan[]> {
  const under = (all: ReceivedSpan[]) =>
    all.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId && named(span.name));
  return under(await receiver.waitFor((all) => under(all).length >= count));
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0([01])$/;

t.test('tracing is off by default: no span exported, no trace id logged, no traceparent sent upstream', async (t) => {
  // Were an exporter made without the setting, it would send here (the SDK's own variable).
  const fallback = await startOtlpReceiver();
  const saved = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = fallback.url;
  const plain = await startStack({ yaml: PLUGINS, env: EXPORT_DELAY });
  t.teardown(async () => {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = saved;
    await plain.close();
    await fallback.close();
  });
  const answer = await chat(plain, await newKey(plain), {
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  });
  t.equal(answer.status, 200);
  const line = await requestLine(plain, answer.id);
  t.notOk('trace_id' in line, 'no trace id on the log line');
  t.notOk('span_id' in line);
  t.equal(plain.sim.requests().at(-1)?.headers.traceparent, undefined, 'the upstream gets no traceparent');
  await plain.gateway.close(); // a tracer would flush here
  t.equal(fallback.exports, 0, 'nothing was exported');
});

t.test("a request's span carries the GenAI attributes, with the token usage the client got", async (t) => {
  const answer = await chat(stack, await newKey());
  t.equal(answer.status, 200);
  const usage = answer.body.usage as { prompt_tokens: number; completion_tokens: number };
  const choices = answer.body.choices as Array<{ finish_reason: string }>;
  const span = await requestSpan(answer.id);
  t.equal(span.name, 'POST /v1/chat/completions');
  t.equal(span.kind, SPAN_KIND.server);
  t.equal(span.parentSpanId, '', 'a new trace: the client sent no traceparent');
  t.match(span.attributes, {
    'http.request.method': 'POST',
    'http.route': '/v1/chat/completions',
    'http.response.status_code': 200,
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': MODEL,
    'gen_ai.response.model': answer.body.model,
    'gen_ai.request.max_tokens': 40,
    'gen_ai.usage.input_tokens': usage.prompt_tokens,
    'gen_ai.usage.output_tokens': usage.completion_tokens,
    'gateway.stream': false,
    'gateway.dialect': 'chat',
  });
  t.same(span.attributes['gen_ai.response.finish_reasons'], [choices[0]!.finish_reason]);
  t.notOk('error.type' in span.attributes);
  t.match(span.resource, { 'service.name': 'gateway-under-test', 'service.version': /^\d+\.\d+\.\d+/ });
});

t.test("a client's traceparent is continued: the same trace, the client's span as the parent", async (t) => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parent = '00f067aa0ba902b7';
  const answer = await chat(stack, await newKey(), { traceparent: `00-${traceId}-${parent}-01` });
  const span = await requestSpan(answer.id);
  t.equal(span.traceId, traceId);
  t.equal(span.parentSpanId, parent);
});

t.test("the upstream gets a traceparent naming the upstream call's span, in the request's trace", async (t) => {
  const answer = await chat(stack, await newKey(), {}, { stream: true });
  t.equal(answer.status, 200);
  const sent = stack.sim.requests().at(-1)?.headers.traceparent;
  const [, traceId, parentId, sampled] = TRACEPARENT.exec(String(sent)) ?? [];
  const span = await requestSpan(answer.id);
  t.equal(traceId, span.traceId, 'the same trace id');
  t.equal(sampled, '1');
  const [call] = await children(span, 1, (name) => name.startsWith('chat '));
  t.equal(call!.spanId, parentId, "the upstream's parent is the upstream-call span");
  t.equal(call!.name, `chat ${SERVED}`);
  t.equal(call!.kind, SPAN_KIND.client);
  const upstream = new URL(stack.sim.url);
  t.match(call!.attributes, {
    'http.response.status_code': 200,
    'server.address': upstream.hostname,
    'server.port': Number(upstream.port),
    'gen_ai.request.model': SERVED,
  });
});

t.test('a search request has an upstream span per round and a span per search', async (t) => {
  const before = stack.sim.requests().length;
  const answer = await post(
    stack,
    '/v1/messages',
    {
      model: MODEL,
      max_tokens: 400,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      messages: [{ role: 'user', content: 'search: lisbon weather' }],
    },
    { 'x-api-key': await newKey(), 'anthropic-version': '2023-06-01' },
  );
  t.equal(answer.status, 200);
  const rounds = stack.sim.requests().length - before;
  t.ok(rounds >= 2, 'the model was called again after its search');
  const span = await requestSpan(answer.id);
  const calls = await children(span, rounds, (name) => name.startsWith('chat '));
  t.equal(calls.length, rounds, 'one upstream span per round');
  const [search] = await children(span, 1, (name) => name.startsWith('search '));
  t.equal(search!.name, 'search local');
  t.equal(search!.kind, SPAN_KIND.client);
  t.match(search!.attributes, { 'gateway.search.provider': 'local', 'gateway.search.results': Number });
  t.notOk(JSON.stringify(search!.attributes).includes('lisbon'), 'the query is not an attribute');
});

t.test("the store's work is under the request span: the key lookup, the meter's hold and settlement", async (t) => {
  const answer = await chat(stack, await newKey());
  const span = await requestSpan(answer.id);
  const store = await children(span, 3, (name) => name.startsWith('store '));
  t.same(store.map((child) => child.name).sort(), ['store key lookup', 'store meter hold', 'store meter settlement']);
  for (const child of store) t.match(child.attributes, { 'db.system.name': 'sqlite' });
});

t.test("the request's log line carries its trace id and span id", async (t) => {
  const answer = await chat(stack, await newKey());
  const line = await requestLine(stack, answer.id);
  const span = await requestSpan(answer.id);
  t.equal(line.trace_id, span.traceId);
  t.equal(line.span_id, span.spanId);
});

t.test('each WebSocket request message gets its own span', async (t) => {
  const key = await newKey();
  const ws = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  t.teardown(() => ws.close());
  const completed: string[] = [];
  let onCompleted = (): void => {};
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; response?: { id: string } };
    if (message.type === 'response.completed' || message.type === 'error') {
      completed.push(message.type);
      onCompleted();
    }
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const answered = (count: number) =>
    new Promise<void>((resolve) => {
      onCompleted = () => {
        if (completed.length >= count) resolve();
      };
      onCompleted();
    });
  const create = { type: 'response.create', model: MODEL, input: 'Hello there' };
  ws.send(JSON.stringify(create));
  await answered(1);
  ws.send(JSON.stringify(create));
  await answered(2);
  t.same(completed, ['response.completed', 'response.completed']);
  const ids = stack.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === 'request' && entry.path === '/v1/responses' && entry.status === 200)
    .map((entry) => String(entry.requestId));
  t.equal(ids.length, 2, 'two request lines');
  const spans = await Promise.all(ids.map(requestSpan));
  t.not(spans[0]!.spanId, spans[1]!.spanId, 'a span each');
  for (const span of spans) {
    t.equal(span.name, 'GET /v1/responses');
    t.match(span.attributes, {
      'http.route': '/v1/responses',
      'gateway.stream': true,
      'gen_ai.operation.name': 'chat',
    });
    t.equal((await children(span, 1, (name) => name.startsWith('chat '))).length, 1, 'with its upstream call');
  }
});

t.test('sample_ratio 0: nothing is exported for requests without a sampled traceparent', async (t) => {
  const own = await startOtlpReceiver();
  const sampledOut = await startStack({
    yaml: `tracing:\n  otlp_url: ${own.url}\n  sample_ratio: 0\n${PLUGINS}`,
    env: EXPORT_DELAY,
  });
  t.teardown(async () => {
    await sampledOut.close();
    await own.close();
  });
  const key = await newKey(sampledOut);
  const sampled = '5bf92f3577b34da6a3ce929d0e0e4736';
  t.equal((await chat(sampledOut, key)).status, 200);
  t.equal(
    (await chat(sampledOut, key, { traceparent: '00-6bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' })).status,
    200,
  );
  const followed = await chat(sampledOut, key, { traceparent: `00-${sampled}-00f067aa0ba902b7-01` });
  await sampledOut.gateway.close(); // flushes every span that was recorded
  const traces = new Set(own.spans().map((span) => span.traceId));
  t.same([...traces], [sampled], "only the trace the client's traceparent sampled");
  t.ok(
    own.spans().some((span) => span.attributes['gateway.request.id'] === followed.id),
    'its request span is there',
  );
});
