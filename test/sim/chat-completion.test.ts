import t from 'tap';
import { MODEL, complete, post, postJson, simFor } from './sim-client.js';

const hello = [{ role: 'user', content: 'Hello there' }];

t.test('a non-streaming answer has vLLM chat.completion shape', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, { messages: hello });
  t.match(body.id, /^chatcmpl-[0-9a-f]{32}$/);
  t.equal(body.object, 'chat.completion');
  t.equal(body.model, MODEL);
  t.type(body.created, 'number');
  t.equal(body.choices.length, 1);
  const [choice] = body.choices;
  t.equal(choice?.index, 0);
  t.equal(choice?.message.role, 'assistant');
  t.type(choice?.message.content, 'string');
  t.same(choice?.message.tool_calls, []);
  t.equal(choice?.message.reasoning_content, null);
  t.equal(choice?.logprobs, null);
  t.equal(choice?.finish_reason, 'stop');
  t.equal(choice?.stop_reason, null);
  t.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
  t.equal(body.usage.prompt_tokens_details.cached_tokens, 0);
});

t.test('a request without model uses the served model', async (t) => {
  const sim = await simFor(t);
  const { status, body } = await postJson<{ model: string }>(sim, '/v1/chat/completions', { messages: hello });
  t.equal(status, 200);
  t.equal(body.model, MODEL);
});

t.test('another model name is a 404 in vLLM error shape', async (t) => {
  const sim = await simFor(t);
  const { status, body } = await postJson(sim, '/v1/chat/completions', { model: 'gpt-4o', messages: hello });
  t.equal(status, 404);
  t.same(body, {
    error: { message: 'The model `gpt-4o` does not exist.', type: 'NotFoundError', param: 'model', code: 404 },
  });
});

t.test('a custom served model name is honoured', async (t) => {
  const sim = await simFor(t, { servedModel: 'qwen3' });
  t.equal((await postJson(sim, '/v1/chat/completions', { model: 'qwen3', messages: hello })).status, 200);
  t.equal((await postJson(sim, '/v1/chat/completions', { model: MODEL, messages: hello })).status, 404);
});

t.test('malformed JSON is a 400, not a crash', async (t) => {
  const sim = await simFor(t);
  const res = await post(sim, '/v1/chat/completions', '{"model": ');
  t.equal(res.status, 400);
  const body = (await res.json()) as { error: { type: string; code: number } };
  t.equal(body.error.type, 'BadRequestError');
  t.equal(body.error.code, 400);
  t.equal((await complete(sim, { messages: hello })).object, 'chat.completion', 'still serving');
});

t.test('wrong types are a 400 naming the field', async (t) => {
  const sim = await simFor(t);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ model: MODEL }, /messages/],
    [{ model: MODEL, messages: 'hi' }, /messages/],
    [{ model: MODEL, messages: [] }, /messages/],
    [{ model: MODEL, messages: [{ role: 'wizard', content: 'x' }] }, /role/],
    [{ model: MODEL, messages: [{ role: 'user', content: 42 }] }, /content/],
    [
      { model: MODEL, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
      /image_url/,
    ],
    [{ model: MODEL, messages: hello, max_tokens: 'ten' }, /max_tokens/],
    [{ model: MODEL, messages: hello, max_tokens: 0 }, /at least 1/],
    [{ model: MODEL, messages: hello, temperature: 'hot' }, /temperature/],
    [{ model: MODEL, messages: hello, stop: 5 }, /stop/],
    [{ model: MODEL, messages: hello, stream: 'yes' }, /stream/],
    [{ model: MODEL, messages: hello, stream_options: { include_usage: true } }, /stream=True/],
    [{ model: MODEL, messages: hello, tool_choice: 'required' }, /tools/],
    [{ model: MODEL, messages: hello, tool_choice: 'auto' }, /tools/],
    [
      {
        model: MODEL,
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{oops' } }],
          },
        ],
      },
      /arguments/,
    ],
  ];
  for (const [body, pattern] of cases) {
    const res = await postJson<{ error: { message: string; code: number } }>(sim, '/v1/chat/completions', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body.error.message, pattern);
  }
});

t.test('temperature, top_p and seed are accepted and change nothing', async (t) => {
  const sim = await simFor(t);
  const plain = await complete(sim, { messages: hello });
  const tuned = await complete(sim, { messages: hello, temperature: 1.3, top_p: 0.5, seed: 7, presence_penalty: 1 });
  t.equal(tuned.choices[0]?.message.content, plain.choices[0]?.message.content);
});

t.test('max_tokens cuts the answer with finish_reason length', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, { messages: hello, max_tokens: 3 });
  t.equal(body.usage.completion_tokens, 3);
  t.equal(body.choices[0]?.finish_reason, 'length');
  t.equal(body.choices[0]?.stop_reason, null);
  const newer = await complete(sim, { messages: hello, max_tokens: 50, max_completion_tokens: 2 });
  t.equal(newer.usage.completion_tokens, 2, 'max_completion_tokens wins');
});

t.test('a stop string truncates before the match and sets stop_reason', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, {
    messages: [{ role: 'user', content: 'echo: one two three four' }],
    stop: ['zzz', ' three'],
  });
  t.equal(body.choices[0]?.message.content, 'one two');
  t.equal(body.choices[0]?.finish_reason, 'stop');
  t.equal(body.choices[0]?.stop_reason, ' three');
  t.equal(body.usage.completion_tokens, 3, 'the tokens up to the one completing the stop string');
  const single = await complete(sim, {
    messages: [{ role: 'user', content: 'echo: one two three four' }],
    stop: 'four',
  });
  t.equal(single.choices[0]?.message.content, 'one two three ');
  t.equal(single.choices[0]?.stop_reason, 'four');
});

t.test('include_stop_str_in_output keeps the stop string', async (t) => {
  const sim = await simFor(t);
  const body = await complete(sim, {
    messages: [{ role: 'user', content: 'echo: one two three four' }],
    stop: [' three'],
    include_stop_str_in_output: true,
  });
  t.equal(body.choices[0]?.message.content, 'one two three');
});

t.test('a prompt longer than max_model_len is a 400', async (t) => {
  const sim = await simFor(t, { maxModelLen: 20 });
  const long = await postJson<{ error: { message: string } }>(sim, '/v1/chat/completions', {
    messages: [{ role: 'user', content: 'word '.repeat(40) }],
  });
  t.equal(long.status, 400);
  t.match(long.body.error.message, /maximum context length is 20 tokens/);
  const tooMuch = await postJson<{ error: { message: string } }>(sim, '/v1/chat/completions', {
    messages: hello,
    max_tokens: 15,
  });
  t.equal(tooMuch.status, 400);
  t.match(tooMuch.body.error.message, /in the completion/);
  const fits = await complete(sim, { messages: hello });
  t.equal(
    fits.usage.prompt_tokens + fits.usage.completion_tokens <= 20,
    true,
    'the default max_tokens fills the context',
  );
});
