import t from 'tap';
import { CHATML_TEMPLATE } from '../../../tokenizer/chatml-template.js';
import { TiktokenModel } from '../../../tokenizer/tiktoken-model.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';
import { REQUESTS, SERVED_MODEL, tokenizerConfig } from './sample-requests.js';

const context = { upstreamUrls: [], servedModel: SERVED_MODEL };
const exact = await createTokenCounter(tokenizerConfig(), context);
const approx = await createTokenCounter(tokenizerConfig({ source: 'tiktoken' }), context);
t.teardown(async () => {
  await exact.close();
  await approx.close();
});

t.test('tiktoken is labelled an approximation', async (t) => {
  t.equal(approx.source, 'tiktoken');
  t.equal(approx.exact, false);
  t.equal(exact.exact, true);
});

// Off by design: Qwen3's template drops developer messages and adds a <think> block for
// enable_thinking: false, which the generic ChatML template does not; and Qwen3 has single tokens for
// <tool_call>, <tool_response> and their closing tags.
t.test(
  'tiktoken (o200k_base) stays within 15% (or 10 tokens) of the exact Qwen3 count, and within 5% overall',
  async (t) => {
    let exactTotal = 0;
    let approxTotal = 0;
    for (const [name, request] of Object.entries(REQUESTS)) {
      const truth = await exact.count(request);
      const guess = await approx.count(request);
      exactTotal += truth;
      approxTotal += guess;
      const error = (guess - truth) / truth;
      t.comment(
        `${name.padEnd(24)} exact ${String(truth).padStart(5)}  tiktoken ${String(guess).padStart(5)}  ${(error * 100).toFixed(1).padStart(6)}%`,
      );
      t.ok(
        Math.abs(guess - truth) <= Math.max(10, 0.15 * truth),
        `${name}: ${guess - truth} tokens, ${(error * 100).toFixed(1)}%`,
      );
    }
    const overall = (approxTotal - exactTotal) / exactTotal;
    t.comment(`all requests: ${(overall * 100).toFixed(1)}%`);
    t.ok(Math.abs(overall) <= 0.05, `overall ${(overall * 100).toFixed(1)}%`);
  },
);

t.test('system prompt, messages and tools all count in the approximation too', async (t) => {
  const user = { role: 'user' as const, content: 'Weather in Paris?' };
  const plain = await approx.count({ model: 'm', messages: [user] });
  t.ok(
    (await approx.count({ model: 'm', messages: [{ role: 'system', content: 'Be terse.' }, user] })) > plain,
    'system prompt',
  );
  t.ok(
    (await approx.count({ model: 'm', messages: [user, { role: 'assistant', content: 'Sunny.' }, user] })) > plain,
    'more turns',
  );
  t.ok((await approx.count({ ...REQUESTS.tools!, messages: [user] })) > plain + 50, 'tools');
});

t.test('the ChatML template: markers are one token each, other special-token text is plain text', async (t) => {
  const model = await TiktokenModel.load('o200k_base');
  t.equal(
    model.prompt({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Hi' },
      ],
    }),
    '<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  );
  t.equal(model.encode('<|im_start|><|im_end|>').length, 2);
  t.ok(model.encode('<|endoftext|>').length > 1, "the encoding's own special tokens in user text do not throw");
  t.match(CHATML_TEMPLATE, /<tools>/);
});

t.test('the encoding is chosen in the config', async (t) => {
  const cl100k = await createTokenCounter(
    tokenizerConfig({ source: 'tiktoken', tiktoken: { encoding: 'cl100k_base' } }),
    context,
  );
  t.teardown(() => cl100k.close());
  const request = REQUESTS.multilingual!;
  t.not(
    await cl100k.count(request),
    await approx.count(request),
    'cl100k splits CJK and Cyrillic differently from o200k',
  );
});
