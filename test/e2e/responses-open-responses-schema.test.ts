// The responses dialect against the Open Responses schema (test/fixtures/open-responses/openapi.json,
// 2026-04-24): in profile `openai` every body and every streamed event is valid, for a text answer, an answer cut
// by max_output_tokens, function tool calls, web search, and a stream the upstream breaks; in profile `spec` the
// body is valid too (its text delta, `delta: {output_text}`, is the spec's and the one known conflict).
import t, { type Test } from 'tap';
import { parseSse } from '../helpers/metered-answers.js';
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

let stack: Stack;
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
});
t.teardown(() => stack.close());

async function post(body: Json, wire: 'spec' | 'openai', headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(`${stack.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-wire': wire, ...headers },
    body: JSON.stringify({ model: MODEL, ...body }),
  });
  t.equal(response.status, 200, 'answered 200');
  return response;
}

async function body(request: Json, wire: 'spec' | 'openai'): Promise<Json> {
  return (await (await post(request, wire)).json()) as Json;
}

async function events(request: Json, headers: Record<string, string> = {}): Promise<Json[]> {
  const text = await (await post({ ...request, stream: true }, 'openai', headers)).text();
  return parseSse(text).map((frame) => JSON.parse(frame.data) as Json);
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

t.test('[openai] a stream the upstream breaks: the error event and response.failed are valid', async (t) => {
  const all = await events({ input: 'Say hello.' }, { 'x-sim-fault': 'cut:3' });
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
