// The function-tools switch (`dialects.responses.function_tools: true`): function tools, function_call output items
// with function_call_arguments deltas, and function_call_output input items, round trips with real clients.
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import t from 'tap';
import { z } from 'zod';
import { present } from '../helpers/present.js';
import { stackForFile } from '../kit/file-stack.js';
import { openaiClient, WIRE_PROFILES } from '../kit/openai-client.js';
import { readSse } from '../kit/sse-reader.js';

const MODEL = 'qwen3-8b';
const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

/** The agents SDK's declarations name openai's CommonJS types; at run time it is the same client. */
type AgentsClient = ConstructorParameters<typeof OpenAIResponsesModel>[0];
const agentsClient = (client: OpenAI): AgentsClient => client as unknown as AgentsClient;

const stack = await stackForFile(t, { yaml: 'dialects:\n  responses:\n    function_tools: true\n' });
setTracingDisabled(true);

for (const wire of WIRE_PROFILES) {
  const client = (): OpenAI => openaiClient(stack, wire);

  t.test(`[${wire}] a tool round trip: a function_call item, then function_call_output, then the answer`, async (t) => {
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Use get_weather city=Paris' }];
    const first = await client().responses.create({ model: MODEL, input, tools: [WEATHER] });
    t.equal(first.status, 'completed');
    const call = first.output.find((item) => item.type === 'function_call');
    t.ok(call, 'the output has a function_call item');
    if (call?.type !== 'function_call') return;
    t.match(call, { name: 'get_weather', status: 'completed', id: /^fc_/ });
    t.same(JSON.parse(call.arguments), { city: 'Paris' });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
      type: 'function_call_output',
      call_id: call.call_id,
      output: 'Sunny, 21 C',
    });
    const second = await client().responses.create({ model: MODEL, input, tools: [WEATHER] });
    t.equal(second.status, 'completed');
    t.match(second.output_text, /Sunny, 21 C/);
  });

  t.test(`[${wire}] a streamed call: function_call_arguments deltas, and the stream helper assembles it`, async (t) => {
    const runner = client().responses.stream({ model: MODEL, input: 'get_weather city=Oslo', tools: [WEATHER] });
    let fromDeltas = '';
    runner.on('response.function_call_arguments.delta', (event) => {
      fromDeltas += event.delta;
    });
    const final = await runner.finalResponse();
    const call = final.output[0];
    t.equal(call?.type, 'function_call');
    if (call?.type !== 'function_call') return;
    t.same(JSON.parse(call.arguments), { city: 'Oslo' });
    t.equal(fromDeltas, call.arguments, 'the deltas add up to the arguments');
  });
}

t.test('the AI SDK (responses model) runs a tool round trip', async (t) => {
  const model = createOpenAI({
    apiKey: 'sk-test',
    baseURL: stack.baseURL,
    headers: { 'x-gateway-wire': 'openai' },
  }).responses(MODEL);
  const weather = tool({
    description: 'Weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `Rain in ${city}`,
  });
  const result = await generateText({
    model,
    tools: { get_weather: weather },
    stopWhen: stepCountIs(3),
    prompt: 'Use get_weather city=Lima',
    maxRetries: 0,
  });
  t.equal(result.steps[0]?.toolCalls[0]?.toolName, 'get_weather');
  t.same(result.steps[0]?.toolCalls[0]?.input, { city: 'Lima' });
  t.match(result.text, /Rain in Lima/);
});

t.test('the Agents SDK runs a function tool', async (t) => {
  const model = new OpenAIResponsesModel(
    agentsClient(
      new OpenAI({
        apiKey: 'sk-test',
        baseURL: stack.baseURL,
        maxRetries: 0,
        defaultHeaders: { 'x-gateway-wire': 'openai' },
      }),
    ),
    MODEL,
  );
  const getWeather = agentTool({
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `Snow in ${city}`,
  });
  const result = await run(
    new Agent({ name: 'Weather', instructions: 'Use the tool.', model, tools: [getWeather] }),
    'Use get_weather city=Bern',
  );
  t.match(result.finalOutput, /Snow in Bern/);
  t.equal(result.state.usage.requests, 2);
});

t.test(
  'a Codex-shaped exchange (wire_api = "responses"): a shell call streamed, then its output sent back',
  async (t) => {
    const shell = {
      type: 'function',
      name: 'shell',
      description: 'Runs a shell command and returns its output.',
      strict: false,
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'array', items: { type: 'string' } },
          workdir: { type: 'string' },
          timeout_ms: { type: 'number' },
        },
        required: ['command'],
        additionalProperties: false,
      },
    };
    const base = {
      model: MODEL,
      instructions: 'You are a coding agent.',
      tools: [shell],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: null,
      store: false,
      stream: true,
      include: [],
      prompt_cache_key: 'session-1',
    };
    const input: unknown[] = [
      {
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: '<permissions>workspace-write</permissions>' }],
      },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>cwd=/tmp</environment_context>' }],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run shell command=["ls","-la"]' }] },
    ];
    // The frames as this test reads them: output_item.done's item, response.completed's output (t.match checks the rest).
    interface Frame {
      event: string;
      data: { item?: { call_id: string; arguments: string }; response?: { output: unknown[] } };
    }
    const events = async (body: unknown): Promise<Frame[]> => {
      const response = await fetch(`${stack.baseURL}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-wire': 'openai' },
        body: JSON.stringify(body),
      });
      t.equal(response.status, 200);
      return readSse(await response.text()).map((frame) => ({
        event: frame.event!,
        data: JSON.parse(frame.data) as Frame['data'],
      }));
    };
    const first = await events({ ...base, input });
    const done = first.filter((frame) => frame.event === 'response.output_item.done').map((frame) => frame.data.item);
    t.equal(done.length, 1);
    t.match(done[0], { type: 'function_call', name: 'shell', status: 'completed' });
    const call = present(done[0], 'the function_call item');
    t.same(JSON.parse(call.arguments), { command: ['ls', '-la'], workdir: 'example', timeout_ms: 42 });
    const completed = first.at(-1)!;
    t.equal(completed.event, 'response.completed');
    t.same(completed.data.response?.output, done, 'the items Codex collects from output_item.done are the final ones');
    input.push(...done, { type: 'function_call_output', call_id: call.call_id, output: 'total 0' });
    const second = await events({ ...base, input });
    const message = second
      .filter((frame) => frame.event === 'response.output_item.done')
      .map((frame) => frame.data.item)[0];
    t.match(message, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: /total 0/ }] });
  },
);
