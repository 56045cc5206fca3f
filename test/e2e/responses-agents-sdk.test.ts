// The responses dialect driven by the OpenAI Agents SDK (@openai/agents, Responses API mode), tracing off.
// Runs go through both profiles; streamed runs need profile `openai` (the SDK reads `delta` only as a string: docs/wire.md).
import {
  Agent,
  OpenAIResponsesModel,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from '@openai/agents';
import OpenAI from 'openai';
import t from 'tap';
import { startStack, type Stack } from '../helpers/stack.js';

/** The agents SDK's declarations name openai's CommonJS types; at run time it is the same client. */
type AgentsClient = Parameters<typeof setDefaultOpenAIClient>[0];
const agentsClient = (client: OpenAI): AgentsClient => client as unknown as AgentsClient;

let stack: Stack;
t.before(async () => {
  stack = await startStack();
  // Nothing on the internet can be reached: our server is the client's only endpoint, and no traces are exported.
  setDefaultOpenAIClient(
    agentsClient(
      new OpenAI({
        apiKey: 'sk-test',
        baseURL: stack.baseURL,
        maxRetries: 0,
        defaultHeaders: { 'x-gateway-wire': 'openai' },
      }),
    ),
  );
  setOpenAIAPI('responses');
  setTracingDisabled(true);
});
t.teardown(() => stack.close());

const agent = (): Agent =>
  new Agent({ name: 'Echo', instructions: 'You repeat what you are told.', model: 'qwen3-8b' });

for (const wire of ['spec', 'openai'] as const) {
  t.test(`[${wire}] a plain run returns the final output and usage`, async (t) => {
    const model = new OpenAIResponsesModel(
      agentsClient(
        new OpenAI({
          apiKey: 'sk-test',
          baseURL: stack.baseURL,
          maxRetries: 0,
          defaultHeaders: { 'x-gateway-wire': wire },
        }),
      ),
      'qwen3-8b',
    );
    const result = await run(
      new Agent({ name: 'Echo', instructions: 'You repeat what you are told.', model }),
      'echo: agents say hi',
    );
    t.equal(result.finalOutput, 'agents say hi');
    const usage = result.state.usage;
    t.equal(usage.requests, 1);
    t.ok(usage.inputTokens > 0);
    t.equal(usage.outputTokens, 4);
    t.equal(usage.totalTokens, usage.inputTokens + usage.outputTokens);
  });
}

t.test('a streamed run yields the text deltas and the final output', async (t) => {
  const result = await run(agent(), 'echo: streamed agent words', { stream: true });
  let text = '';
  for await (const chunk of result.toTextStream()) text += chunk;
  await result.completed;
  t.equal(text, 'streamed agent words');
  t.equal(result.finalOutput, 'streamed agent words');
});

t.test('a second turn carries the history in the input (the dialect is stateless)', async (t) => {
  const first = await run(agent(), 'echo: turn one');
  const second = await run(agent(), [...first.history, { role: 'user', content: 'echo: turn two' }]);
  t.equal(second.finalOutput, 'turn two');
});
