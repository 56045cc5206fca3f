// The sim's llama-server flavor: its errors in llama-server's shape, `{"error":{"code","message","type"}}`,
// before an answer and in the middle of a stream; one rule per test.
import t from 'tap';
import { llamaSimFor, llamaStream } from './llama-client.js';
import { post, sseData } from './sim-client.js';

t.test('a malformed field is a 400 invalid_request_error', async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(sim, '/v1/chat/completions', { messages: 'Hi' });
  t.equal(res.status, 400);
  t.same(Object.keys(((await res.json()) as { error: object }).error), ['code', 'message', 'type']);
});

t.test(
  'a prompt that does not fit the context: 400 exceed_context_size_error with n_prompt_tokens and n_ctx',
  async (t) => {
    const sim = await llamaSimFor(t, { maxModelLen: 16 });
    const request = { messages: [{ role: 'user', content: 'echo: a long enough question for sixteen tokens' }] };
    const res = await post(sim, '/v1/chat/completions', request);
    t.equal(res.status, 400);
    const body = (await res.json()) as { error: Record<string, unknown> };
    t.match(body.error, {
      code: 400,
      message: /^request \(\d+ tokens\) exceeds the available context size \(16 tokens\), try increasing it$/,
      type: 'exceed_context_size_error',
      n_ctx: 16,
    });
    t.ok((body.error.n_prompt_tokens as number) >= 16);
    const streamed = await llamaStream(sim, request);
    t.equal(streamed.status, 400, 'streamed: the same 400, before any byte of a stream');
  },
);

t.test('malformed JSON is a 500 server_error, as llama-server answers it', async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(sim, '/v1/chat/completions', '{"messages": [');
  t.equal(res.status, 500);
  t.match(await res.json(), { error: { code: 500, type: 'server_error', message: /parse error/ } });
});

t.test("a status fault answers in llama-server's shape, typed after the status", async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(
    sim,
    '/v1/chat/completions',
    { messages: [{ role: 'user', content: 'Hi' }] },
    { 'x-sim-fault': '503' },
  );
  t.equal(res.status, 503);
  t.match(await res.json(), { error: { code: 503, type: 'unavailable_error' } });
});

t.test('x-sim-fault error:N: N chunks, then data: {"error": …} and no [DONE]', async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(
    sim,
    '/v1/chat/completions',
    { stream: true, messages: [{ role: 'user', content: 'echo: one two three four' }] },
    { 'x-sim-fault': 'error:2' },
  );
  t.equal(res.status, 200);
  const data = sseData(await res.text());
  t.equal(data.length, 3);
  t.same(JSON.parse(data[2] ?? ''), {
    error: { code: 500, message: 'Context size has been exceeded.', type: 'server_error' },
  });
});

t.test('x-sim-fault error:N without stream: the 500 as the whole answer', async (t) => {
  const sim = await llamaSimFor(t);
  const res = await post(
    sim,
    '/v1/chat/completions',
    { messages: [{ role: 'user', content: 'echo: Hi' }] },
    { 'x-sim-fault': 'error:2' },
  );
  t.equal(res.status, 500);
  t.same(await res.json(), { error: { code: 500, message: 'Context size has been exceeded.', type: 'server_error' } });
});
