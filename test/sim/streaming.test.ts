import t from 'tap';
import { complete, simFor, streamChat, type Chunk } from './sim-client.js';

const hello = [{ role: 'user', content: 'Hello there' }];
const contentChunks = (chunks: Chunk[]): Chunk[] => chunks.filter((c) => c.choices[0]?.delta.content !== undefined && c.choices[0].delta.role === undefined);

t.test('a stream is a role chunk, one chunk per token, the finish on the last, then [DONE]', async (t) => {
  const sim = await simFor(t);
  const { chunks, done, status, contentType } = await streamChat(sim, { messages: hello, stream_options: { include_usage: true } });
  t.equal(status, 200);
  t.match(contentType, /^text\/event-stream/);
  t.equal(done, true);
  const [first] = chunks;
  t.same(first?.choices, [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
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
  const text = contentChunks(chunks).map((c) => c.choices[0]?.delta.content ?? '').join('');
  const body = await complete(sim, { messages: hello });
  t.equal(text, body.choices[0]?.message.content);
  t.notOk(chunks.some((c) => c.usage), 'no usage without include_usage');
});

t.test('multi-byte characters are never split across chunks', async (t) => {
  const sim = await simFor(t);
  const text = 'Grüße 🎉🇫🇷 你好世界 مرحبا 😀 naïve';
  const { chunks } = await streamChat(sim, { messages: [{ role: 'user', content: `echo: ${text}` }] });
  const pieces = contentChunks(chunks).map((c) => c.choices[0]?.delta.content ?? '');
  t.equal(pieces.join(''), text);
  t.notOk(pieces.some((p) => p.includes('\uFFFD')), 'no replacement characters');
  t.ok(pieces.some((p) => p === ''), 'a token that ends inside a character streams an empty piece');
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
  t.ok(chunks.every((c) => c.usage?.prompt_tokens === prompt && c.usage.total_tokens === prompt + c.usage.completion_tokens));
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
  const { chunks } = await streamChat(sim, { messages: [{ role: 'user', content: 'echo: alpha beta gamma delta' }], stop: 'gamma' });
  const tokens = contentChunks(chunks);
  t.equal(tokens.map((c) => c.choices[0]?.delta.content).join(''), 'alpha beta ');
  t.equal(tokens.at(-1)?.choices[0]?.finish_reason, 'stop');
  t.equal(tokens.at(-1)?.choices[0]?.stop_reason, 'gamma');
});

t.test('ttft and itl delay the chunks', async (t) => {
  const sim = await simFor(t, { ttftMs: 120 });
  const started = Date.now();
  await streamChat(sim, { messages: hello, max_tokens: 3 }, { 'x-sim-itl-ms': '40' });
  const took = Date.now() - started;
  t.ok(took >= 120 + 2 * 40 - 10, `took ${took} ms`);
  const quick = Date.now();
  await streamChat(sim, { messages: hello, max_tokens: 3 }, { 'x-sim-ttft-ms': '0' });
  t.ok(Date.now() - quick < 100, 'the header overrides the option');
});
