// The sim's llama-server flavor: how its chat answers differ from vLLM's (sim/README.md, "The
// llama-server flavor"), one rule per test.
import t from 'tap';
import {
  llamaComplete,
  llamaSimFor,
  llamaStream,
  streamedContent,
  streamedReasoning,
  WEATHER_TOOL,
} from './llama-client.js';
import { post } from './sim-client.js';

const GREET = { messages: [{ role: 'user', content: 'think: Let me greet.\necho: Hello!' }] };

t.test('no stop_reason: a stop string ends the answer with finish_reason stop, the string removed', async (t) => {
  const sim = await llamaSimFor(t);
  const request = { messages: [{ role: 'user', content: 'echo: Hello world, again' }], stop: ['world'] };
  const body = await llamaComplete(sim, request);
  t.equal(body.choices[0]?.finish_reason, 'stop');
  t.equal(body.choices[0]?.message.content, 'Hello ');
  t.notOk('stop_reason' in (body.choices[0] ?? {}), 'no stop_reason in the choice');
  const { chunks } = await llamaStream(sim, request);
  t.equal(streamedContent(chunks), 'Hello ');
  t.ok(
    chunks.every((c) => !('stop_reason' in (c.choices[0] ?? {}))),
    'no chunk has a stop_reason',
  );
  t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
  t.same(chunks.at(-2)?.choices[0]?.delta, { content: ' ' });
  t.ok(chunks.at(-2)?.timings, 'the token that completed the stop string carries the timings, the slot being stopped');
});

t.test('include_stop_str_in_output is ignored: the stop string never reaches the text', async (t) => {
  const sim = await llamaSimFor(t);
  const body = await llamaComplete(sim, {
    messages: [{ role: 'user', content: 'echo: Hello world, again' }],
    stop: ['world'],
    include_stop_str_in_output: true,
  });
  t.equal(body.choices[0]?.message.content, 'Hello ');
});

t.test('reasoning comes as reasoning_content; the content starts with the answer itself', async (t) => {
  const sim = await llamaSimFor(t, { reasoningParser: true });
  const body = await llamaComplete(sim, GREET);
  const message = body.choices[0]?.message;
  // `<think>` and the newline after it are the tag's; the newline before `</think>` stays in the reasoning.
  t.equal(message?.reasoning_content, 'Let me greet.\n');
  // `</think>` and the two newlines after it are the tag's.
  t.equal(message?.content, 'Hello!');
  t.notOk(message && 'reasoning' in message, 'never `reasoning`');
});

t.test(
  'streamed reasoning: reasoning_content deltas, then the answer; tags and their newlines send nothing',
  async (t) => {
    const sim = await llamaSimFor(t, { reasoningParser: true, reasoningField: 'reasoning' });
    const { chunks } = await llamaStream(sim, GREET);
    t.equal(streamedReasoning(chunks), 'Let me greet.\n');
    t.equal(streamedContent(chunks), 'Hello!');
    const kinds = chunks.map((c) => Object.keys(c.choices[0]?.delta ?? {}).join());
    const firstContent = kinds.indexOf('content');
    t.ok(kinds.lastIndexOf('reasoning_content') < firstContent, 'all reasoning before the content');
    t.notOk(
      chunks.some((c) => c.choices[0]?.delta.content === '' || c.choices[0]?.delta.content === '\n'),
      'no empty or newline-only content chunk',
    );
  },
);

t.test('a message without thinking has no reasoning_content field', async (t) => {
  const sim = await llamaSimFor(t);
  const body = await llamaComplete(sim, { messages: [{ role: 'user', content: 'echo: Hi' }] });
  t.same(Object.keys(body.choices[0]?.message ?? {}), ['role', 'content']);
});

t.test(
  'the first chunk is {role, content: null} and goes out with the first token; chunks have no logprobs',
  async (t) => {
    const sim = await llamaSimFor(t);
    const { chunks } = await llamaStream(sim, { messages: [{ role: 'user', content: 'echo: Hello world' }] });
    t.same(chunks[0]?.choices[0]?.delta, { role: 'assistant', content: null });
    t.same(chunks[1]?.choices[0]?.delta, { content: 'Hello' });
    t.same(Object.keys(chunks[0] ?? {}), ['choices', 'created', 'id', 'model', 'system_fingerprint', 'object']);
    t.same(Object.keys(chunks[0]?.choices[0] ?? {}), ['finish_reason', 'index', 'delta']);
    t.match(chunks[0]?.id, /^chatcmpl-[0-9A-Za-z]{32}$/);
    t.equal(chunks[0]?.system_fingerprint, 'b1-de3ff81');
  },
);

t.test('the end: a delta {} chunk with the finish reason, the usage chunk, timings on the last chunk', async (t) => {
  const sim = await llamaSimFor(t);
  const { chunks, done } = await llamaStream(sim, {
    messages: [{ role: 'user', content: 'echo: Hello world' }],
    stream_options: { include_usage: true },
  });
  t.ok(done);
  const finish = chunks.at(-2);
  const usage = chunks.at(-1);
  t.same(finish?.choices, [{ finish_reason: 'stop', index: 0, delta: {} }]);
  t.notOk(finish?.timings, 'the usage chunk is the last: it has the timings');
  t.same(usage?.choices, []);
  t.same(Object.keys(usage?.usage ?? {}), [
    'completion_tokens',
    'prompt_tokens',
    'total_tokens',
    'prompt_tokens_details',
  ]);
  t.equal(usage?.usage?.completion_tokens, 3, '"Hello", " world" and the end of turn');
  t.equal(usage?.timings?.predicted_n, 3);
  t.ok(
    chunks.slice(0, -1).every((c) => c.timings === undefined),
    'no timings before the last chunk',
  );
  const without = await llamaStream(sim, { messages: [{ role: 'user', content: 'echo: Hello world' }] });
  t.ok(without.chunks.at(-1)?.timings, 'without usage the finish chunk has them');
  t.equal(without.chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
});

t.test('timings_per_token: the last chunk of every token carries the timings so far', async (t) => {
  const sim = await llamaSimFor(t);
  const { chunks } = await llamaStream(sim, {
    messages: [{ role: 'user', content: 'echo: Hello world' }],
    timings_per_token: true,
  });
  // role + "Hello" (token 1), " world" (token 2), finish (token 3, the end of turn).
  t.same(
    chunks.map((c) => c.timings?.predicted_n),
    [undefined, 1, 2, 3],
  );
  t.same(Object.keys(chunks[1]?.timings ?? {}), [
    'cache_n',
    'prompt_n',
    'prompt_ms',
    'prompt_per_token_ms',
    'prompt_per_second',
    'predicted_n',
    'predicted_ms',
    'predicted_per_token_ms',
    'predicted_per_second',
  ]);
});

t.test('timings count the prompt: cache_n reused from the slot, prompt_n computed', async (t) => {
  const sim = await llamaSimFor(t, { ttftMs: 0 });
  const request = { messages: [{ role: 'user', content: 'echo: Hello world' }] };
  const first = await llamaComplete(sim, request);
  t.equal(first.timings.cache_n, 0);
  t.equal(first.timings.prompt_n, first.usage.prompt_tokens);
  const again = await llamaComplete(sim, request);
  t.equal(again.timings.cache_n, again.usage.prompt_tokens - 1);
  t.equal(again.timings.prompt_n, 1);
  t.equal(again.timings.predicted_n, again.usage.completion_tokens);
});

t.test('cached_tokens is always reported: a repeated prompt reuses all but its last token', async (t) => {
  const sim = await llamaSimFor(t);
  const request = { messages: [{ role: 'user', content: 'echo: Hello world' }] };
  const first = await llamaComplete(sim, request);
  t.same(first.usage.prompt_tokens_details, { cached_tokens: 0 });
  const again = await llamaComplete(sim, request);
  // Token by token, not in 16-token blocks as vLLM.
  t.equal(again.usage.prompt_tokens_details.cached_tokens, again.usage.prompt_tokens - 1);
});

t.test('slot reuse serves every caller: a prefix one caller sent is a cache hit for another', async (t) => {
  const sim = await llamaSimFor(t, { apiKey: 'k' });
  const system = { role: 'system', content: 'You are a careful assistant. '.repeat(10) };
  await llamaComplete(
    sim,
    { messages: [system, { role: 'user', content: 'echo: one' }] },
    { authorization: 'Bearer k' },
  );
  const other = await llamaComplete(
    sim,
    { messages: [system, { role: 'user', content: 'echo: two' }], cache_salt: 'another-org' },
    { authorization: 'Bearer k' },
  );
  t.ok(other.usage.prompt_tokens_details.cached_tokens > 60, 'the shared system prompt is reused, cache_salt or not');
});

t.test(
  'a prompt goes to the slot holding most of it; a slot taken over is restored from the prompt cache',
  async (t) => {
    const sim = await llamaSimFor(t, { slots: 2 });
    const ask = async (word: string): Promise<number> =>
      (await llamaComplete(sim, { messages: [{ role: 'user', content: `echo: ${word} `.repeat(20) }] })).usage
        .prompt_tokens_details.cached_tokens;
    t.equal(await ask('alpha'), 0);
    t.equal(await ask('beta'), 0, 'the free slot: nothing of alpha is reused');
    t.ok((await ask('alpha')) > 20, 'alpha is still in its slot');
    await ask('gamma'); // takes beta's slot, the least recently used; beta goes to the prompt cache
    t.ok((await ask('beta')) > 20, 'beta comes back from the prompt cache');
  },
);

t.test('tool-call ids are 32 letters and digits, the same for the same conversation', async (t) => {
  const sim = await llamaSimFor(t);
  const request = { tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'get_weather city=Paris' }] };
  const first = await llamaComplete(sim, request);
  const again = await llamaComplete(sim, request);
  const id = first.choices[0]?.message.tool_calls?.[0]?.id;
  t.match(id, /^[0-9A-Za-z]{32}$/);
  t.equal(again.choices[0]?.message.tool_calls?.[0]?.id, id);
  const streamed = await llamaStream(sim, request);
  t.equal(
    streamed.chunks.find((c) => c.choices[0]?.delta.tool_calls?.[0]?.id)?.choices[0]?.delta.tool_calls?.[0]?.id,
    id,
  );
});

t.test('non-streamed tool calls: content "", the call with its id last, finish_reason tool_calls', async (t) => {
  const sim = await llamaSimFor(t);
  const body = await llamaComplete(sim, {
    tools: [WEATHER_TOOL],
    messages: [{ role: 'user', content: 'get_weather city=Paris' }],
  });
  const message = body.choices[0]?.message;
  t.equal(message?.content, '');
  t.same(Object.keys(message?.tool_calls?.[0] ?? {}), ['type', 'function', 'id']);
  t.same(message?.tool_calls?.[0]?.function, { name: 'get_weather', arguments: '{"city": "Paris"}' });
  t.equal(body.choices[0]?.finish_reason, 'tool_calls');
});

t.test('a streamed tool call: its id and name come with the first piece of the arguments, then the rest', async (t) => {
  const sim = await llamaSimFor(t);
  const { chunks } = await llamaStream(sim, {
    tools: [WEATHER_TOOL],
    messages: [{ role: 'user', content: 'get_weather city=Paris' }],
  });
  const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  t.same(calls[0], {
    index: 0,
    id: calls[0]?.id,
    type: 'function',
    function: { name: 'get_weather', arguments: '{"' },
  });
  t.ok(
    calls.slice(1).every((call) => call.id === undefined && call.function?.name === undefined),
    'later deltas carry arguments only',
  );
  t.equal(calls.map((call) => call.function?.arguments ?? '').join(''), '{"city": "Paris"}');
  t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'tool_calls');
});

t.test('a trailing assistant message is continued, and echoed at the start of the answer', async (t) => {
  const sim = await llamaSimFor(t, { reasoningParser: true });
  const request = {
    messages: [
      { role: 'user', content: 'echo: Hello world' },
      { role: 'assistant', content: 'Sure:' },
    ],
  };
  const body = await llamaComplete(sim, request);
  t.equal(body.choices[0]?.message.content, 'Sure:Hello world');
  t.notOk(body.choices[0]?.message.reasoning_content, 'the prompt closed the thinking');
  t.equal(body.usage.completion_tokens, 3, 'the prefill is not generated');
  const { chunks } = await llamaStream(sim, request);
  t.same(chunks[1]?.choices[0]?.delta, { content: 'Sure:Hello' }, 'the first token brings the prefill');
  // The prompt leaves the turn open: the count of llama-server's /apply-template + /tokenize.
  const template = (await (await post(sim, '/apply-template', request)).json()) as { prompt: string };
  t.match(template.prompt, /<\|im_start\|>assistant\n<think>\n\n<\/think>\n\nSure:$/);
  const tokens = (await (await post(sim, '/tokenize', { content: template.prompt })).json()) as { tokens: number[] };
  t.equal(body.usage.prompt_tokens, tokens.tokens.length);
});

t.test('continue_final_message continues the prefill without echoing it', async (t) => {
  const sim = await llamaSimFor(t);
  const body = await llamaComplete(sim, {
    continue_final_message: true,
    add_generation_prompt: false,
    messages: [
      { role: 'user', content: 'echo: Hello world' },
      { role: 'assistant', content: 'Sure:' },
    ],
  });
  t.equal(body.choices[0]?.message.content, 'Hello world');
});

t.test('continuous_usage_stats is ignored: chunks carry no running usage', async (t) => {
  const sim = await llamaSimFor(t);
  const { chunks } = await llamaStream(sim, {
    messages: [{ role: 'user', content: 'echo: Hello world' }],
    stream_options: { include_usage: true, continuous_usage_stats: true },
  });
  t.same(
    chunks.map((c) => c.usage !== undefined),
    [false, false, false, false, true],
  );
});

t.test('stream_options without stream is ignored (vLLM refuses it)', async (t) => {
  const sim = await llamaSimFor(t);
  const body = await llamaComplete(sim, {
    messages: [{ role: 'user', content: 'echo: Hi' }],
    stream_options: { include_usage: true },
  });
  t.equal(body.choices[0]?.message.content, 'Hi');
});

t.test('unknown fields and cache_salt are ignored', async (t) => {
  const sim = await llamaSimFor(t);
  const body = await llamaComplete(sim, {
    messages: [{ role: 'user', content: 'echo: Hi' }],
    cache_salt: 'org-1',
    some_field_nobody_knows: { deep: [1, 2] },
  });
  t.equal(body.choices[0]?.message.content, 'Hi');
});

t.test("the request's model is ignored: the answer names the served model", async (t) => {
  const sim = await llamaSimFor(t, { servedModel: 'tiny-qwen3.gguf' });
  const body = await llamaComplete(sim, { model: 'gpt-4o', messages: [{ role: 'user', content: 'echo: Hi' }] });
  t.equal(body.model, 'tiny-qwen3.gguf');
});

t.test('reasoning_effort none switches the thinking off, as enable_thinking false does', async (t) => {
  const sim = await llamaSimFor(t, { reasoningParser: true });
  const off = await llamaComplete(sim, { ...GREET, reasoning_effort: 'none' });
  const disabled = await llamaComplete(sim, { ...GREET, chat_template_kwargs: { enable_thinking: false } });
  t.equal(off.choices[0]?.message.reasoning_content, undefined);
  t.equal(off.choices[0]?.message.content, 'Hello!');
  t.equal(off.usage.prompt_tokens, disabled.usage.prompt_tokens);
});

t.test('max_tokens past the context is let through: the answer stops where the context ends', async (t) => {
  const sim = await llamaSimFor(t, { maxModelLen: 14, outputTokens: 24 });
  const body = await llamaComplete(sim, { max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
  t.equal(body.choices[0]?.finish_reason, 'length');
  t.equal(body.usage.prompt_tokens + body.usage.completion_tokens, 14);
});

t.test('max_tokens -1 means no limit', async (t) => {
  const sim = await llamaSimFor(t);
  const body = await llamaComplete(sim, { max_tokens: -1, messages: [{ role: 'user', content: 'echo: Hi' }] });
  t.equal(body.choices[0]?.finish_reason, 'stop');
});

t.test('cache_prompt false reuses nothing of the slot', async (t) => {
  const sim = await llamaSimFor(t);
  const request = { messages: [{ role: 'user', content: 'echo: Hello world' }] };
  await llamaComplete(sim, request);
  const again = await llamaComplete(sim, { ...request, cache_prompt: false });
  t.equal(again.usage.prompt_tokens_details.cached_tokens, 0);
  t.equal(again.timings.cache_n, 0);
});

t.test(
  'an answer that starts with a newline keeps it after the reasoning (the research model\'s "\\n" chunk)',
  async (t) => {
    const sim = await llamaSimFor(t, { reasoningParser: true });
    const { chunks } = await llamaStream(sim, {
      messages: [{ role: 'user', content: 'think: Let me think.\necho: \nHello world!' }],
    });
    const contents = chunks.map((c) => c.choices[0]?.delta.content).filter((c) => typeof c === 'string');
    t.same(contents, ['\n', 'Hello', ' world', '!']);
  },
);
