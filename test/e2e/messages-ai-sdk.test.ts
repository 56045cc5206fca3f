// The message dialect driven by the AI SDK's anthropic provider (`ai` + `@ai-sdk/anthropic`).
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import t from 'tap';
import { z } from 'zod';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack();
});
t.teardown(() => stack.close());

const model = () => createAnthropic({ apiKey: 'sk-test', baseURL: `${stack.gateway.url}/v1` })('qwen3-8b');
const weather = tool({
  description: 'Weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => `Snow in ${city}`,
});

t.test('generateText returns the text, the finish reason and usage', async (t) => {
  const result = await generateText({ model: model(), prompt: 'echo: from the AI SDK', maxRetries: 0 });
  t.equal(result.text, 'from the AI SDK');
  t.equal(result.finishReason, 'stop');
  t.ok((result.usage.inputTokens ?? 0) > 0);
  t.ok((result.usage.outputTokens ?? 0) > 0);
});

t.test('streamText streams the text and reports usage', async (t) => {
  const result = streamText({ model: model(), prompt: 'echo: streamed through anthropic', maxRetries: 0 });
  let text = '';
  for await (const part of result.textStream) text += part;
  t.equal(text, 'streamed through anthropic');
  t.ok(((await result.usage).inputTokens ?? 0) > 0);
});

t.test('generateText runs a tool round trip', async (t) => {
  const result = await generateText({
    model: model(),
    tools: { get_weather: weather },
    stopWhen: stepCountIs(3),
    prompt: 'Use get_weather city=Bern',
    maxRetries: 0,
  });
  t.equal(result.steps[0]?.toolCalls[0]?.toolName, 'get_weather');
  t.same(result.steps[0]?.toolCalls[0]?.input, { city: 'Bern' });
  t.match(result.text, /Snow in Bern/);
});

t.test('streamText runs a tool round trip', async (t) => {
  const result = streamText({
    model: model(),
    tools: { get_weather: weather },
    stopWhen: stepCountIs(3),
    prompt: 'Use get_weather city=Oslo',
    maxRetries: 0,
  });
  let text = '';
  for await (const part of result.textStream) text += part;
  const steps = await result.steps;
  t.same(steps[0]?.toolCalls[0]?.input, { city: 'Oslo' });
  t.match(text, /Snow in Oslo/);
});
