// Wire negotiation on the default config (`wire: auto`, docs/wire.md): the real openai SDK, which names itself,
// gets OpenAI's wire without asking; a client that names nothing (a bare fetch, as curl) gets the spec's; the
// `x-gateway-wire` header still forces either; the same on the WebSocket mode, from the upgrade's headers.
import OpenAI from 'openai';
import t from 'tap';
import WebSocket from 'ws';
import { startStack, type Stack } from '../helpers/stack.js';
import { sseJson } from '../kit/sse-reader.js';

const MODEL = 'qwen3-8b';
let stack: Stack;
t.before(async () => {
  stack = await startStack();
});
t.teardown(() => stack.close());

const sdk = (headers: Record<string, string> = {}) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, maxRetries: 0, defaultHeaders: headers });

type Json = Record<string, unknown>;

/** The data of each SSE event of a streamed responses request sent by a bare fetch (no user agent of an SDK). */
async function bareStream(headers: Record<string, string> = {}): Promise<Json[]> {
  const response = await fetch(`${stack.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: MODEL, input: 'echo: bare words', stream: true }),
  });
  const text = await response.text();
  return sseJson<Json>(text);
}

const textDeltas = (events: Json[]) => events.filter((event) => event.type === 'response.output_text.delta');

t.test(
  'the openai SDK without the header: responses.stream() gets string deltas, its helper events and final response work',
  async (t) => {
    const runner = sdk().responses.stream({ model: MODEL, input: 'echo: one two three' });
    const deltas: unknown[] = [];
    const snapshots: string[] = [];
    runner.on('response.output_text.delta', (event) => {
      deltas.push(event.delta);
      snapshots.push(event.snapshot);
    });
    let doneText: string | undefined;
    runner.on('response.output_text.done', (event) => (doneText = event.text));
    const final = await runner.finalResponse();
    t.ok(deltas.length > 0);
    t.ok(
      deltas.every((delta) => typeof delta === 'string'),
      'every delta a string (OpenAI wire)',
    );
    t.equal(snapshots.at(-1), 'one two three', 'the helper accumulates the text');
    t.equal(doneText, 'one two three');
    t.equal(final.output_text, 'one two three');
    t.equal(final.status, 'completed');
    t.notOk('finish_reason' in final, "the body in OpenAI's shape, without the spec's fields");
  },
);

t.test('the openai SDK with x-gateway-wire: spec still gets the spec profile', async (t) => {
  const stream = await sdk({ 'x-gateway-wire': 'spec' }).responses.create({
    model: MODEL,
    input: 'echo: spec words',
    stream: true,
  });
  const deltas: unknown[] = [];
  for await (const event of stream) if (event.type === 'response.output_text.delta') deltas.push(event.delta);
  t.same(
    deltas.map((delta) => (delta as { output_text: string }).output_text).join(''),
    'spec words',
    'object deltas {output_text} (the spec)',
  );
  const body = await sdk({ 'x-gateway-wire': 'spec' }).responses.create({ model: MODEL, input: 'echo: spec body' });
  t.match(body, { finish_reason: 'stop', created: body.created_at }, "the spec's fields in the body");
});

t.test('a client that names nothing (a bare fetch, as curl) gets the spec profile', async (t) => {
  const events = await bareStream();
  t.match(events[0], { type: 'response.created', object: 'response' }, "the spec's response.created");
  t.equal(
    textDeltas(events)
      .map((event) => (event.delta as { output_text: string }).output_text)
      .join(''),
    'bare words',
    'object deltas {output_text}',
  );
});

t.test('a bare fetch with x-gateway-wire: openai gets the openai profile', async (t) => {
  const events = await bareStream({ 'x-gateway-wire': 'openai' });
  const deltas = textDeltas(events).map((event) => event.delta);
  t.ok(deltas.every((delta) => typeof delta === 'string'));
  t.equal(deltas.join(''), 'bare words');
});

t.test('chat: the openai SDK without the header gets the data-only stream, which it reads', async (t) => {
  const stream = await sdk().chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'echo: chat words' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    usage = chunk.usage ?? usage;
  }
  t.equal(text, 'chat words');
  t.ok((usage?.completion_tokens ?? 0) > 0);
});

/** The text deltas of one response over a WebSocket opened with these upgrade headers. */
async function socketDeltas(headers: Record<string, string>): Promise<unknown[]> {
  const ws = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}/v1/responses`, { headers });
  const deltas: unknown[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () =>
      ws.send(JSON.stringify({ type: 'response.create', model: MODEL, input: 'echo: over a socket' })),
    );
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Json;
      if (message.type === 'response.output_text.delta') deltas.push(message.delta);
      if (message.type === 'response.completed' || message.type === 'error') resolve();
    });
  });
  ws.close();
  return deltas;
}

// Codex's upgrade headers, as the pinned 0.169 sends them (test/unit/proxy/routing/wire-negotiation.test.ts).
const CODEX_UPGRADE = {
  originator: 'codex_exec',
  'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64) unknown (codex_exec; 0.169.0)',
  'openai-beta': 'responses_websockets=2026-02-06',
};

t.test("WebSocket mode: an upgrade with Codex's headers gets the openai profile", async (t) => {
  const deltas = await socketDeltas(CODEX_UPGRADE);
  t.ok(deltas.length > 0);
  t.equal(deltas.join(''), 'over a socket', 'string deltas');
});

t.test('WebSocket mode: an upgrade that names nothing gets the spec profile, and the header forces it', async (t) => {
  for (const headers of [{}, { ...CODEX_UPGRADE, 'x-gateway-wire': 'spec' }]) {
    const deltas = await socketDeltas(headers);
    t.equal(
      deltas.map((delta) => (delta as { output_text: string }).output_text).join(''),
      'over a socket',
      `object deltas for ${JSON.stringify(Object.keys(headers))}`,
    );
  }
});

t.test('the config forces a profile: wire: spec gives the openai SDK the spec profile', async (t) => {
  const forced = await startStack({ yaml: 'wire: spec\n' });
  t.teardown(() => forced.close());
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: forced.baseURL, maxRetries: 0 });
  const body = await client.responses.create({ model: MODEL, input: 'echo: forced' });
  t.match(body, { finish_reason: 'stop', output_text: 'forced' });
});
