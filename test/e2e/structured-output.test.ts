// Structured outputs over the sim: what reaches a vLLM upstream from each dialect's own field (the format as
// `response_format`, a strict tool as `function.strict`, the message dialect's effort as `reasoning_effort`),
// and the 400 in the caller's dialect, naming its field, from a flavor that cannot enforce a format (TGI).
import t from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { startStack, type Stack } from '../helpers/stack.js';

const MODEL = 'qwen3-8b';
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const PATHS: Record<DialectName, string> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
};
const QUESTION = [{ role: 'user', content: 'echo: {"city": "Paris"}' }];

/** Each dialect's request for a JSON answer following SCHEMA, and the field it names it in. */
const FORMATS: Array<[DialectName, Record<string, unknown>, string]> = [
  [
    'chat',
    {
      messages: QUESTION,
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema: SCHEMA, strict: true } },
    },
    'response_format',
  ],
  [
    'messages',
    {
      max_tokens: 100,
      messages: QUESTION,
      output_config: { format: { type: 'json_schema', schema: SCHEMA } },
    },
    'output_config.format',
  ],
  [
    'messages',
    { max_tokens: 100, messages: QUESTION, output_format: { type: 'json_schema', schema: SCHEMA } },
    'output_format',
  ],
  [
    'responses',
    { input: QUESTION, text: { format: { type: 'json_schema', name: 'city', schema: SCHEMA, strict: true } } },
    'text.format',
  ],
];

let vllm: Stack;
let tgi: Stack;
t.before(async () => {
  [vllm, tgi] = await Promise.all([startStack({}), startStack({ yaml: 'upstream:\n  flavor: tgi\n' })]);
});
t.teardown(async () => {
  await Promise.all([vllm.close(), tgi.close()]);
});

async function post(stack: Stack, dialect: DialectName, body: Record<string, unknown>) {
  const response = await fetch(stack.gateway.url + PATHS[dialect], {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const lastUpstreamBody = (stack: Stack): Record<string, unknown> =>
  stack.sim
    .requests()
    .filter((request) => request.path === '/v1/chat/completions')
    .at(-1)!.body as Record<string, unknown>;

for (const [dialect, body, field] of FORMATS)
  t.test(`${dialect} ${field} reaches vLLM as a json_schema response_format`, async (t) => {
    const answer = await post(vllm, dialect, body);
    t.equal(answer.status, 200, JSON.stringify(answer.body));
    t.match(lastUpstreamBody(vllm).response_format, {
      type: 'json_schema',
      json_schema: { schema: SCHEMA, strict: true },
    });
    t.notOk('response_format_param' in lastUpstreamBody(vllm), 'the gateway-side field stays in the gateway');
  });

t.test('messages tools[].strict reaches the upstream as the function tool strict', async (t) => {
  const answer = await post(vllm, 'messages', {
    max_tokens: 100,
    messages: QUESTION,
    tools: [{ name: 'get_weather', input_schema: SCHEMA, strict: true }],
  });
  t.equal(answer.status, 200, JSON.stringify(answer.body));
  t.match(lastUpstreamBody(vllm).tools, [{ type: 'function', function: { name: 'get_weather', strict: true } }]);
});

t.test(
  'messages output_config.effort reaches vLLM as reasoning_effort; the thinking switch is unchanged',
  async (t) => {
    const answer = await post(vllm, 'messages', {
      max_tokens: 100,
      messages: QUESTION,
      output_config: { effort: 'low' },
      thinking: { type: 'disabled' },
    });
    t.equal(answer.status, 200, JSON.stringify(answer.body));
    t.equal(lastUpstreamBody(vllm).reasoning_effort, 'low');
    t.same(lastUpstreamBody(vllm).chat_template_kwargs, { enable_thinking: false });
    await post(vllm, 'messages', { max_tokens: 100, messages: QUESTION, output_config: { effort: 'max' } });
    t.equal(lastUpstreamBody(vllm).reasoning_effort, undefined, 'vLLM takes low, medium and high only');
  },
);

for (const [dialect, body, field] of FORMATS)
  t.test(`TGI: ${dialect} ${field} is a 400 in the dialect naming the field, never sent`, async (t) => {
    const before = tgi.sim.requests().length;
    const answer = await post(tgi, dialect, body);
    t.equal(answer.status, 400);
    const error = answer.body.error as { message: string; type: string; param?: string };
    t.match(error.message, `${field}: the model server (tgi) cannot enforce a JSON schema`);
    t.equal(error.type, 'invalid_request_error');
    if (dialect !== 'messages') t.equal(error.param, field);
    t.equal(tgi.sim.requests().length, before, 'nothing reached the upstream');
  });
