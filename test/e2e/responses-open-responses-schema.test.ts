// The responses dialect against the Open Responses schema (test/fixtures/open-responses/openapi.json,
// 2026-04-24): in profile `openai` every body and every streamed event is valid, for a text answer, an answer cut
// by max_output_tokens, function tool calls, web search, reasoning (the sim playing vLLM's Qwen3 reasoning parser)
// before a message or a call, Codex's tool items and compaction item, and a stream the upstream breaks; in profile `spec` the body is
// valid too (its text delta, `delta: {output_text}`, is the spec's and the one known conflict). Where the
// Responses API has what the schema lacks, the helper's labelled extensions give OpenAI's shapes.
import t, { type Test } from 'tap';
import { readSse } from '../kit/sse-reader.js';
import { openResponsesValidator, type OpenResponsesValidator } from '../helpers/open-responses-schema.js';
import { startStack, type Stack } from '../helpers/stack.js';

const MODEL = 'qwen3-8b';
const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

type Json = Record<string, unknown>;

const schema = openResponsesValidator();
const withWebSearch = openResponsesValidator({ webSearch: true });
const withReasoning = openResponsesValidator({ reasoningText: true });
const withCodexTools = openResponsesValidator({ reasoningText: true, codexTools: true });

let stack: Stack;
/** A second gateway, in front of a sim that thinks first (vLLM's `--reasoning-parser qwen3`). */
let thinking: Stack;
t.before(async () => {
  stack = await startStack({
    yaml: [
      'dialects:',
      '  responses:',
      '    function_tools: true',
      'upstream:',
      '  forward_headers: [x-sim-fault]',
      'plugins:',
      '  - name: search',
      '    options: { provider: local }',
    ].join('\n'),
  });
  thinking = await startStack({
    sim: { reasoningParser: true },
    yaml: 'dialects:\n  responses:\n    function_tools: true\n',
  });
});
t.teardown(async () => {
  await stack.close();
  await thinking.close();
});

interface Target {
  stack?: Stack;
  headers?: Record<string, string>;
}

async function post(body: Json, wire: 'spec' | 'openai', target: Target = {}): Promise<Response> {
  const response = await fetch(`${(target.stack ?? stack).baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-wire': wire, ...target.headers },
    body: JSON.stringify({ model: MODEL, ...body }),
  });
  // Thrown, not asserted: the failure then lands in the subtest that posted.
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`);
  return response;
}

async function body(request: Json, wire: 'spec' | 'openai', target: Target = {}): Promise<Json> {
  return (await (await post(request, wire, target)).json()) as Json;
}

async function events(request: Json, target: Target = {}): Promise<Json[]> {
  const text = await (await post({ ...request, stream: true }, 'openai', target)).text();
  return readSse(text).map((frame) => JSON.parse(frame.data) as Json);
}

function checkBody(t: Test, validator: OpenResponsesValidator, response: Json): void {
  t.same(validator.response(response), [], `the ${String(response.status)} response is a valid ResponseResource`);
}

function checkEvents(t: Test, validator: OpenResponsesValidator, all: Json[]): void {
  const invalid = all.flatMap((event) => validator.event(event).map((error) => `${String(event.type)}: ${error}`));
  t.same(invalid, [], `all ${all.length} events are valid against their schemas`);
  t.same(
    all.map((event) => event.sequence_number),
    all.map((_, index) => index),
    'sequence_number rises from 0 by one',
  );
}

/** The item ids of the added and done events are those of the final response's output, in output_index order. */
function checkItemIds(t: Test, all: Json[]): void {
  const final = all.at(-1)!.response as { output: Array<{ id: string }> };
  const ids = final.output.map((item) => item.id);
  for (const type of ['response.output_item.added', 'response.output_item.done']) {
    const items = all.filter((event) => event.type === type);
    t.same(
      items.map((event) => [event.output_index, (event.item as { id: string }).id]),
      ids.map((id, index) => [index, id]),
      `${type}: the final output's ids, in order`,
    );
  }
}

t.test('[openai] a text answer: the body and every event are valid', async (t) => {
  const request = { input: 'Say hello in three words.' };
  const response = await body(request, 'openai');
  checkBody(t, schema, response);
  t.match(response, { status: 'completed', completed_at: Number, temperature: 1, top_p: 1, service_tier: 'default' });
  const all = await events(request);
  checkEvents(t, schema, all);
  checkItemIds(t, all);
  t.equal(all.at(-1)!.type, 'response.completed');
});

t.test('[openai] an answer cut by max_output_tokens: incomplete, the body and every event valid', async (t) => {
  const request = { input: 'Tell a long story.', max_output_tokens: 5 };
  const response = await body(request, 'openai');
  checkBody(t, schema, response);
  t.match(response, { status: 'incomplete', completed_at: null, incomplete_details: { reason: 'max_output_tokens' } });
  const all = await events(request);
  checkEvents(t, schema, all);
  t.equal(all.at(-1)!.type, 'response.incomplete');
});

t.test('[openai] function tool calls: the body, the echoed tool with strict, and every event valid', async (t) => {
  const request = { input: 'Use get_weather city=Paris', tools: [WEATHER], temperature: 0.3, presence_penalty: 0.5 };
  const response = await body(request, 'openai');
  checkBody(t, schema, response);
  t.match(response, {
    output: [{ type: 'function_call', name: 'get_weather' }],
    tools: [{ ...WEATHER, strict: null }],
    temperature: 0.3,
    presence_penalty: 0.5,
  });
  const all = await events(request);
  checkEvents(t, schema, all);
  checkItemIds(t, all);
  t.ok(
    all.some((event) => event.type === 'response.function_call_arguments.done'),
    'the arguments are done in an event of their own',
  );
});

t.test(
  "[openai] web search: every event and the body valid, web search items and events in OpenAI's shapes",
  async (t) => {
    const request = { input: 'search: lisbon weather', tools: [{ type: 'web_search' }] };
    const response = await body(request, 'openai');
    checkBody(t, withWebSearch, response);
    t.same(
      (response.output as Json[]).map((item) => item.type),
      ['web_search_call', 'message'],
    );
    const all = await events(request);
    checkEvents(t, withWebSearch, all);
    checkItemIds(t, all);
    t.ok(
      all.some((event) => event.type === 'response.output_text.annotation.added'),
      'citations come as annotation events',
    );
  },
);

/** The types of the events, in order, without the deltas' repeats. */
function eventTypes(all: Json[]): string[] {
  return all.map((event) => String(event.type)).filter((type, index, types) => type !== types[index - 1]);
}

t.test(
  "[openai] reasoning, then a message: the reasoning item and every event valid, the reasoning text events against the schema's reasoning delta and done",
  async (t) => {
    const request = { input: 'think: Let me greet.\necho: Hello!' };
    const response = await body(request, 'openai', { stack: thinking });
    checkBody(t, withReasoning, response);
    t.match(response.output, [
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: '\nLet me greet.\n' }] },
      { type: 'message' },
    ]);
    checkBody(t, withReasoning, await body(request, 'spec', { stack: thinking }));
    const all = await events(request, { stack: thinking });
    checkEvents(t, withReasoning, all);
    checkItemIds(t, all);
    t.same(eventTypes(all).slice(0, 7), [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
    ]);
    t.equal(all.find((event) => event.type === 'response.reasoning_text.done')!.text, '\nLet me greet.\n');
  },
);

t.test('[openai] reasoning, then a function call: the body and every event valid', async (t) => {
  const request = { input: 'think: Weather first.\nUse get_weather city=Paris', tools: [WEATHER] };
  const response = await body(request, 'openai', { stack: thinking });
  checkBody(t, withReasoning, response);
  t.same(
    (response.output as Json[]).map((item) => item.type),
    ['reasoning', 'function_call'],
  );
  const all = await events(request, { stack: thinking });
  checkEvents(t, withReasoning, all);
  checkItemIds(t, all);
  t.ok(
    all.some((event) => event.type === 'response.function_call_arguments.done'),
    'the arguments are done in an event of their own',
  );
});

/** Codex's tool types, as Codex 0.169 sends them with its default features (and the local shell of older ones). */
const CODEX_TOOLS = [
  {
    type: 'namespace',
    name: 'multi_agent_v1',
    description: 'Tools for spawning and managing sub-agents.',
    tools: [{ ...WEATHER, name: 'close_agent', strict: false }],
  },
  {
    type: 'custom',
    name: 'apply_patch',
    description: 'Edit files.',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" /.+/' },
  },
  { type: 'local_shell' },
];

t.test(
  "[openai] Codex's tool items: a namespace's function_call valid as the schema's, custom_tool_call and local_shell_call in OpenAI's shapes",
  async (t) => {
    const request = {
      input: 'think: Three tools.\nUse multi_agent_v1__close_agent city=Oslo, apply_patch and local_shell',
      tools: CODEX_TOOLS,
    };
    const response = await body(request, 'openai', { stack: thinking });
    t.match(response.output, [
      { type: 'reasoning' },
      { type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1' },
      { type: 'custom_tool_call', name: 'apply_patch' },
      { type: 'local_shell_call', action: { type: 'exec' } },
    ]);
    checkBody(t, withCodexTools, response);
    const all = await events(request, { stack: thinking });
    checkEvents(t, withCodexTools, all);
    const namespaced = all.filter(
      (event) =>
        (event.item as Json | undefined)?.type === 'function_call' ||
        String(event.type).startsWith('response.function_call_arguments.'),
    );
    t.same(
      namespaced.flatMap((event) => withReasoning.event(event)),
      [],
      `the namespace's function_call and its ${namespaced.length} events are valid without the Codex extension`,
    );
    checkItemIds(t, all);
    t.ok(
      all.some((event) => event.type === 'response.custom_tool_call_input.done'),
      "the custom tool's input is done in an event of its own",
    );
  },
);

t.test(
  "[openai] Codex's compaction: the answer to a compaction_trigger (one compaction item), body and events, is valid",
  async (t) => {
    const request = {
      input: [{ role: 'user', content: 'Fix the build.' }, { type: 'compaction_trigger' }],
      tools: [WEATHER],
    };
    const response = await body(request, 'openai');
    checkBody(t, schema, response);
    t.match(response, {
      status: 'completed',
      output: [{ type: 'compaction', id: /^cmp_/, encrypted_content: /^gwc1\./ }],
    });
    t.equal((response.output as unknown[]).length, 1);
    const all = await events(request);
    checkEvents(t, schema, all);
    checkItemIds(t, all);
    const item = (all.at(-1)!.response as { output: Json[] }).output[0]!;
    const next = await body({ input: [item, { role: 'user', content: 'Go on.' }] }, 'openai');
    t.match(next, { status: 'completed', output: [{ type: 'message' }] }, 'the item is accepted as input');
  },
);

t.test('[openai] a stream the upstream breaks: the error event and response.failed are valid', async (t) => {
  const all = await events({ input: 'Say hello.' }, { headers: { 'x-sim-fault': 'cut:3' } });
  checkEvents(t, schema, all);
  t.same(
    all.slice(-2).map((event) => event.type),
    ['error', 'response.failed'],
  );
  t.match(all.at(-1)!.response, { status: 'failed', error: { code: 'upstream_stream_cut' } });
});

t.test('[spec] the body is a valid ResponseResource beside the spec fields', async (t) => {
  for (const request of [
    { input: 'Say hello.' },
    { input: 'Tell a long story.', max_output_tokens: 5 },
    { input: 'Use get_weather city=Paris', tools: [WEATHER] },
  ]) {
    const response = await body(request, 'spec');
    checkBody(t, schema, response);
    t.match(response, { object: 'response', created: Number, output_text: String, finish_reason: String });
  }
});

t.test(
  'regression: the response object lacked completed_at, the penalties, top_logprobs, max_tool_calls, service_tier, safety_identifier and prompt_cache_key, sent temperature and top_p as null, and echoed function tools without strict',
  async (t) => {
    const response = await body(
      {
        input: 'Say hello.',
        tools: [{ ...WEATHER, strict: true }],
        max_tool_calls: 3,
        top_logprobs: 2,
        safety_identifier: 'user-1',
        prompt_cache_key: 'conversation-1',
      },
      'openai',
    );
    t.match(response, {
      completed_at: Number,
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 2,
      max_tool_calls: 3,
      service_tier: 'default',
      safety_identifier: 'user-1',
      prompt_cache_key: 'conversation-1',
      temperature: 1,
      top_p: 1,
      tools: [{ ...WEATHER, strict: true }],
    });
    checkBody(t, schema, response);
  },
);
