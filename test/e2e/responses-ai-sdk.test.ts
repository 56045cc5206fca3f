// The responses dialect driven by the AI SDK's openai provider in responses mode, in profile `openai`
// (the AI SDK reads `delta` only as a string: docs/wire.md); a non-streamed call also reads profile `spec`.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, type ModelMessage } from 'ai';
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({ yaml: 'wire: openai\n' });
});
t.teardown(() => stack.close());

const provider = () => createOpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL });
const models = {
  'responses()': () => provider().responses('qwen3-8b'),
  'the default model': () => provider()('qwen3-8b'),
};

for (const [name, model] of Object.entries(models)) {
  t.test(`[${name}] generateText returns the text, finish reason and usage`, async (t) => {
    const result = await generateText({
      model: model(),
      system: 'You repeat.',
      prompt: 'echo: generated text',
      maxRetries: 0,
    });
    t.equal(result.text, 'generated text');
    t.equal(result.finishReason, 'stop');
    t.ok((result.usage.inputTokens ?? 0) > 0);
    t.equal(result.usage.outputTokens, 3);
    t.match(result.response.id, /^resp_/);
  });

  t.test(`[${name}] streamText streams the text and reports usage`, async (t) => {
    const result = streamText({ model: model(), prompt: 'echo: streamed text here', maxRetries: 0 });
    let text = '';
    for await (const part of result.textStream) text += part;
    t.equal(text, 'streamed text here');
    t.equal(await result.finishReason, 'stop');
    t.ok(((await result.usage).outputTokens ?? 0) > 0);
  });
}

t.test("[spec profile] generateText (not streamed) reads the spec profile's body too", async (t) => {
  const model = createOpenAI({
    apiKey: 'sk-test',
    baseURL: stack.baseURL,
    headers: { 'x-gateway-wire': 'spec' },
  }).responses('qwen3-8b');
  const result = await generateText({ model, prompt: 'echo: spec body', maxRetries: 0 });
  t.equal(result.text, 'spec body');
});

t.test('generateText with maxOutputTokens reports the cut as finish reason length', async (t) => {
  const result = await generateText({
    model: models['responses()'](),
    prompt: 'Tell me a story.',
    maxOutputTokens: 3,
    maxRetries: 0,
  });
  t.equal(result.finishReason, 'length');
});

t.test(
  'a conversation carried by the client (the dialect is stateless): with store false, earlier messages go back whole',
  async (t) => {
    const first = await generateText({ model: models['responses()'](), prompt: 'echo: first answer', maxRetries: 0 });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'echo: first answer' },
      ...first.response.messages,
      { role: 'user', content: 'echo: second turn' },
    ];
    const second = await generateText({
      model: models['responses()'](),
      messages,
      providerOptions: { openai: { store: false } },
      maxRetries: 0,
    });
    t.equal(second.text, 'second turn');
    // The AI SDK's default (store: true) replaces earlier output by item references, which a stateless server cannot resolve.
    await t.rejects(generateText({ model: models['responses()'](), messages, maxRetries: 0 }), {
      statusCode: 400,
      message: /item_reference.*store/,
    });
  },
);
