// The chat dialect driven by the AI SDK (`ai` + `@ai-sdk/openai`, the chat-completions model), in both profiles.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import t from 'tap';
import { z } from 'zod';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack();
});
t.teardown(() => stack.close());

const weather = tool({
  description: 'Weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `Rain in ${city}`,
});

for (const wire of ['spec', 'openai'] as const) {
  const model = () =>
    createOpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, headers: { 'x-gateway-wire': wire } }).chat('qwen3-8b');

  t.test(`[${wire}] generateText returns the text and usage`, async (t) => {
    const result = await generateText({ model: model(), prompt: 'echo: generated', maxRetries: 0 });
    t.equal(result.text, 'generated');
    t.equal(result.finishReason, 'stop');
    t.ok((result.usage.inputTokens ?? 0) > 0);
    t.ok((result.usage.outputTokens ?? 0) > 0);
  });

  t.test(`[${wire}] streamText streams the text and reports usage`, async (t) => {
    const result = streamText({ model: model(), prompt: 'echo: streamed text here', maxRetries: 0 });
    let text = '';
    for await (const part of result.textStream) text += part;
    t.equal(text, 'streamed text here');
    t.equal(await result.finishReason, 'stop');
    t.ok(((await result.usage).outputTokens ?? 0) > 0);
  });

  t.test(`[${wire}] generateText runs a tool round trip`, async (t) => {
    const result = await generateText({
      model: model(),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
      prompt: 'Use get_weather city=Lima',
      maxRetries: 0,
    });
    t.equal(result.steps[0]?.toolCalls[0]?.toolName, 'get_weather');
    t.same(result.steps[0]?.toolCalls[0]?.input, { city: 'Lima' });
    t.match(result.text, /Rain in Lima/);
  });

  t.test(`[${wire}] streamText runs a tool round trip`, async (t) => {
    const result = streamText({
      model: model(),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
      prompt: 'Use get_weather city=Quito',
      maxRetries: 0,
    });
    let text = '';
    for await (const part of result.textStream) text += part;
    const steps = await result.steps;
    t.equal(steps[0]?.toolCalls[0]?.toolName, 'get_weather');
    t.same(steps[0]?.toolCalls[0]?.input, { city: 'Quito' });
    t.match(text, /Rain in Quito/);
  });
}
