import t from 'tap';
import { streamChunks } from '../../sim/chat-stream.js';
import { NO_FAULT } from '../../sim/faults.js';
import type { Generation } from '../../sim/generation.js';
import { requestKnobs } from '../../sim/request-knobs.js';
import type { ResponseMeta } from '../../sim/usage.js';
import { MODEL, complete, simFor, streamChat, type Chunk } from './sim-client.js';

const hello = [{ role: 'user', content: 'Hello there' }];
const contentChunks = (chunks: Chunk[]): Chunk[] =>
  chunks.filter((c) => c.choices[0]?.delta.content !== undefined && c.choices[0].delta.role === undefined);

t.test('a stream is a role chunk, one chunk per token, the finish on the last, then [DONE]', async (t) => {
  const sim = await simFor(t);
  const { chunks, done, status, contentType } = await streamChat(sim, {
    messages: hello,
    stream_options: { include_usage: true },
  });
  t.equal(status, 200);
  t.match(contentType, /^text\/event-stream/);
  t.equal(done, true);
  const [first] = chunks;
  t.same(first?.choices, [
    { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
  ]);
  const ids = new Set(chunks.map((c) => c.id));
  t.equal(ids.size, 1, 'one id for the whole stream');
  t.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
  const tokens = contentChunks(chunks);
  const usage = chunks.at(-1);
  t.same(usage?.choices, [], 'the usage chunk has no choices');
  t.equal(usage?.usage?.completion_tokens, tokens.length, 'completion_tokens = number of content chunks');
  tokens.slice(0, -1).forEach((c) => t.equal(c.choices[0]?.finish_reason, null));
  const last = tokens.at(-1)?.choices[0];
  t.equal(last?.finish_reason, 'stop');
  t.equal(last?.stop_reason, null);
  t.notOk('stop_reason' in (tokens[0]?.choices[0] ?? {}), 'stop_reason only on the last chunk');
});

t.test('streamed text equals the non-streaming content', async (t) => {
  const sim = await simFor(t);
  const { chunks } = await streamChat(sim, { messages: hello });
  const text = contentChunks(chunks)
    .map((c) => c.choices[0]?.delta.content ?? '')
    .join('');
  const body = await complete(sim, { messages: hello });
  t.equal(text, body.choices[0]?.message.content);
  t.notOk(
    chunks.some((c) => c.usage),
    'no usage without include_usage',
  );
});

t.test('multi-byte characters are never split across chunks', async (t) => {
  const sim = await simFor(t);
  const text = 'Grüße 🎉🇫🇷 你好世界 مرحبا 😀 naïve';
  const { chunks } = await streamChat(sim, { messages: [{ role: 'user', content: `echo: ${text}` }] });
  const pieces = contentChunks(chunks).map((c) => c.choices[0]?.delta.content ?? '');
  t.equal(pieces.join(''), text);
  t.notOk(
    pieces.some((p) => p.includes('\uFFFD')),
    'no replacement characters',
  );
  t.ok(
    pieces.some((p) => p === ''),
    'a token that ends inside a character streams an empty piece',
  );
});

t.test('continuous_usage_stats puts the running usage on every chunk', async (t) => {
  const sim = await simFor(t);
  const { chunks } = await streamChat(sim, {
    messages: hello,
    max_tokens: 4,
    stream_options: { include_usage: true, continuous_usage_stats: true },
  });
  const running = chunks.slice(0, -1).map((c) => c.usage?.completion_tokens);
  t.same(running, [0, 1, 2, 3, 4]);
  const prompt = chunks[0]?.usage?.prompt_tokens ?? 0;
  t.ok(
    chunks.every(
      (c) => c.usage?.prompt_tokens === prompt && c.usage.total_tokens === prompt + c.usage.completion_tokens,
    ),
  );
  t.equal(chunks.at(-1)?.usage?.prompt_tokens_details?.cached_tokens, 0, 'the final usage has the cache details');
});

t.test('continuous_usage_stats without include_usage sends no usage, as in vLLM', async (t) => {
  const sim = await simFor(t);
  const { chunks } = await streamChat(sim, { messages: hello, stream_options: { continuous_usage_stats: true } });
  t.notOk(chunks.some((c) => c.usage));
});

t.test('max_tokens in a stream ends with finish_reason length', async (t) => {
  const sim = await simFor(t);
  const { chunks } = await streamChat(sim, { messages: hello, max_tokens: 2 });
  const tokens = contentChunks(chunks);
  t.equal(tokens.length, 2);
  t.equal(tokens.at(-1)?.choices[0]?.finish_reason, 'length');
});

t.test('a stop string in a stream ends the stream with stop_reason', async (t) => {
  const sim = await simFor(t);
  const { chunks } = await streamChat(sim, {
    messages: [{ role: 'user', content: 'echo: alpha beta gamma delta' }],
    stop: 'gamma',
  });
  const tokens = contentChunks(chunks);
  t.equal(tokens.map((c) => c.choices[0]?.delta.content).join(''), 'alpha beta ');
  t.equal(tokens.at(-1)?.choices[0]?.finish_reason, 'stop');
  t.equal(tokens.at(-1)?.choices[0]?.stop_reason, 'gamma');
});

t.test(
  'the schedule: the role chunk waits the TTFT and the first token leaves with it; each next token waits one ITL, one that streams nothing too',
  async (t) => {
    const gen: Generation = {
      ids: [1, 2, 3, 4],
      deltas: [{ content: 'a' }, null, { content: 'c' }, { content: 'd' }],
      finishReason: 'stop',
      stopReason: null,
      content: 'acd',
      reasoning: null,
      toolCalls: [],
    };
    const meta: ResponseMeta = {
      id: 'chatcmpl-0',
      created: 0,
      model: MODEL,
      promptTokens: 5,
      cachedTokens: 0,
      reasoningField: 'reasoning_content',
    };
    const chunks = streamChunks(gen, meta, { includeUsage: true, continuousUsage: false, ttftMs: 120, itlMs: 40 });
    t.same(
      chunks.map((chunk) => [
        chunk.delayMs,
        chunk.data.includes('"role"')
          ? 'role'
          : chunk.data.includes('[DONE]')
            ? 'done'
            : chunk.data.includes('"choices":[]')
              ? 'usage'
              : 'token',
      ]),
      [
        [120, 'role'],
        [0, 'token'],
        [80, 'token'],
        [40, 'token'],
        [0, 'usage'],
        [0, 'done'],
      ],
    );
  },
);

t.test('x-sim-ttft-ms and x-sim-itl-ms override the options for one request', async (t) => {
  const defaults = { ttftMs: 120, prefillUsPerToken: 0, itlMs: 0, outputTokens: 24, fault: NO_FAULT };
  t.match(requestKnobs({ 'x-sim-ttft-ms': '0', 'x-sim-itl-ms': '40' }, defaults), { ttftMs: 0, itlMs: 40 });
  t.match(requestKnobs({}, defaults), { ttftMs: 120, itlMs: 0 }, 'the options without them');
});

t.test('a paced stream sends every chunk, in order, to [DONE]', async (t) => {
  const sim = await simFor(t, { ttftMs: 20 });
  const { chunks, done } = await streamChat(sim, { messages: hello, max_tokens: 3 }, { 'x-sim-itl-ms': '10' });
  t.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
  t.equal(contentChunks(chunks).length, 3);
  t.equal(contentChunks(chunks).at(-1)?.choices[0]?.finish_reason, 'length');
  t.equal(done, true);
});
