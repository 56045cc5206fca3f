// Structured outputs in every dialect: what each client field becomes in the canonical request, and the
// terminal's rule per server flavor (sent where the server enforces it, a 400 naming the client's field where not).
import t from 'tap';
import { createChatDecoder } from '../../../../dialects/chat/decode.js';
import { renderChatError } from '../../../../dialects/chat/errors.js';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import { renderMessagesError } from '../../../../dialects/messages/errors.js';
import { createResponsesDecoder } from '../../../../dialects/responses/decode.js';
import type { ChatRequest } from '../../../../core/canonical.js';
import { UPSTREAM_FLAVORS, upstreamFields, type UpstreamFlavor } from '../../../../proxy/upstream/request-fields.js';
import { refuseUnenforcedFormat, upstreamEffort } from '../../../../proxy/upstream/structured-output.js';
import { refusal } from '../../../helpers/rejection.js';

const MODEL = 'qwen3-8b';
const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, sunny: { type: 'boolean' } },
  required: ['city', 'sunny'],
  additionalProperties: false,
};
const messages = createMessagesDecoders(MODEL, 8000);
const decodeMessages = (body: Record<string, unknown>): ChatRequest =>
  messages.decode({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }], ...body }).request;
const responses = createResponsesDecoder({ modelId: MODEL, functionTools: true, maxOutputTokens: 32768 });
const decodeResponses = (body: Record<string, unknown>): ChatRequest =>
  responses({ model: MODEL, input: 'Hi', ...body }).request;
const chat = createChatDecoder({ modelId: MODEL, maxOutputTokens: 32768 });
const decodeChat = (body: Record<string, unknown>): ChatRequest =>
  chat({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...body }).request;

const STRICT_SCHEMA_FORMAT = { type: 'json_schema', json_schema: { name: 'output', schema: SCHEMA, strict: true } };

t.test('messages: output_config.format becomes a strict json_schema response_format', async (t) => {
  const request = decodeMessages({ output_config: { format: { type: 'json_schema', schema: SCHEMA } } });
  t.same(request.response_format, STRICT_SCHEMA_FORMAT);
  t.equal(request.gateway?.response_format_param, 'output_config.format');
});

t.test('messages: the older top-level output_format is read the same way', async (t) => {
  const request = decodeMessages({ output_format: { type: 'json_schema', schema: SCHEMA } });
  t.same(request.response_format, STRICT_SCHEMA_FORMAT);
  t.equal(request.gateway?.response_format_param, 'output_format');
});

t.test('messages: output_config.format and output_format together are a 400', async (t) => {
  const format = { type: 'json_schema', schema: SCHEMA };
  const error = refusal(() => decodeMessages({ output_config: { format }, output_format: format }));
  t.equal(error.status, 400);
  t.equal(error.param, 'output_format');
});

t.test('messages: a format other than json_schema, or without a schema, is a 400 naming it', async (t) => {
  t.match(
    refusal(() => decodeMessages({ output_config: { format: { type: 'regex', schema: SCHEMA } } })),
    {
      status: 400,
      param: /^output_config\.format/,
    },
  );
  t.match(
    refusal(() => decodeMessages({ output_config: { format: { type: 'json_schema' } } })),
    {
      status: 400,
      param: /^output_config\.format/,
    },
  );
});

t.test("messages: tools[].strict becomes the canonical tool's function.strict", async (t) => {
  const request = decodeMessages({
    tools: [
      { name: 'get_weather', input_schema: SCHEMA, strict: true },
      { name: 'get_time', input_schema: { type: 'object' } },
    ],
  });
  t.equal(request.tools?.[0]?.function.strict, true);
  t.notOk('strict' in (request.tools?.[1]?.function ?? {}), 'not set when the client did not set it');
});

t.test(
  'messages: output_config.effort becomes reasoning_effort (max as xhigh, a level unknown here left out); the thinking switch stays thinking',
  async (t) => {
    for (const effort of ['low', 'medium', 'high', 'xhigh'])
      t.equal(decodeMessages({ output_config: { effort } }).reasoning_effort, effort, effort);
    t.equal(decodeMessages({ output_config: { effort: 'max' } }).reasoning_effort, 'xhigh');
    t.equal(
      decodeMessages({ output_config: { effort: 'extreme' } }).reasoning_effort,
      undefined,
      'a level unknown here is left out',
    );
    t.equal(decodeMessages({ output_config: { effort: 'toString' } }).reasoning_effort, undefined);
    t.equal(
      decodeMessages({ output_config: { effort: null, format: null }, output_format: null }).response_format,
      undefined,
      'null is not set',
    );
    t.equal(refusal(() => decodeMessages({ output_config: { effort: 3 } })).status, 400);
    const off = decodeMessages({ output_config: { effort: 'low' }, thinking: { type: 'disabled' } });
    t.equal(off.gateway?.enable_thinking, false);
    t.equal(decodeMessages({ output_config: { effort: 'low' } }).gateway?.enable_thinking, undefined);
  },
);

t.test('responses: text.format json_schema and json_object become response_format, named text.format', async (t) => {
  const schema = decodeResponses({
    text: { format: { type: 'json_schema', name: 'weather', schema: SCHEMA, strict: true } },
  });
  t.same(schema.response_format, {
    type: 'json_schema',
    json_schema: { name: 'weather', schema: SCHEMA, strict: true },
  });
  t.equal(schema.gateway?.response_format_param, 'text.format');
  const object = decodeResponses({ text: { format: { type: 'json_object' } } });
  t.same(object.response_format, { type: 'json_object' });
  t.equal(decodeResponses({ text: { format: { type: 'text' } } }).response_format, undefined);
});

t.test('chat: response_format json_schema and json_object pass as they are', async (t) => {
  const format = { type: 'json_schema', json_schema: { name: 'weather', schema: SCHEMA, strict: true } };
  t.same(decodeChat({ response_format: format }).response_format, format);
  t.same(decodeChat({ response_format: { type: 'json_object' } }).response_format, { type: 'json_object' });
});

/** The flavors whose server enforces response_format json_schema and json_object (constrained decoding). */
const ENFORCING: readonly UpstreamFlavor[] = ['vllm', 'llama-server', 'sglang', 'ollama', 'openai'];

t.test('every flavor but TGI is sent a json_schema or json_object response_format', async (t) => {
  for (const flavor of ENFORCING)
    for (const request of [
      decodeChat({ response_format: STRICT_SCHEMA_FORMAT }),
      decodeChat({ response_format: { type: 'json_object' } }),
    ]) {
      const fields = upstreamFields(flavor, []);
      t.doesNotThrow(() => refuseUnenforcedFormat(request, fields), flavor);
      t.ok(fields.passed.has('response_format'), flavor);
      t.notOk(fields.passed.has('response_format_param'), `${flavor}: the gateway-side param is never sent`);
    }
  t.same(
    UPSTREAM_FLAVORS.filter((flavor) => !ENFORCING.includes(flavor)),
    ['tgi'],
  );
});

t.test("TGI: a schema is a 400 naming the client's own field, in each dialect", async (t) => {
  const tgi = upstreamFields('tgi', []);
  const cases: Array<[ChatRequest, string]> = [
    [decodeMessages({ output_config: { format: { type: 'json_schema', schema: SCHEMA } } }), 'output_config.format'],
    [decodeMessages({ output_format: { type: 'json_schema', schema: SCHEMA } }), 'output_format'],
    [decodeResponses({ text: { format: { type: 'json_schema', name: 'w', schema: SCHEMA } } }), 'text.format'],
    [decodeResponses({ text: { format: { type: 'json_object' } } }), 'text.format'],
    [decodeChat({ response_format: STRICT_SCHEMA_FORMAT }), 'response_format'],
    [decodeChat({ response_format: { type: 'json_object' } }), 'response_format'],
  ];
  for (const [request, param] of cases) {
    const error = refusal(() => refuseUnenforcedFormat(request, tgi));
    t.equal(error.status, 400, param);
    t.equal(error.param, param);
    t.match(error.message, new RegExp(`^${param.replace('.', '\\.')}: the model server \\(tgi\\) cannot enforce`));
  }
  const rendered = renderMessagesError(refusal(() => refuseUnenforcedFormat(cases[0]![0], tgi)));
  t.match(rendered.body, {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: /^output_config\.format: the model server \(tgi\) cannot enforce a JSON schema/,
    },
  });
  t.match(renderChatError(refusal(() => refuseUnenforcedFormat(cases[4]![0], tgi))).body, {
    error: { param: 'response_format', type: 'invalid_request_error' },
  });
});

t.test('TGI: a text format, or none, asks for nothing and passes', async (t) => {
  const tgi = upstreamFields('tgi', []);
  t.doesNotThrow(() => refuseUnenforcedFormat(decodeChat({ response_format: { type: 'text' } }), tgi));
  t.doesNotThrow(() => refuseUnenforcedFormat(decodeChat({}), tgi));
});

t.test('reasoning_effort goes to the servers that take the value, and nowhere else', async (t) => {
  const high = decodeMessages({ output_config: { effort: 'high' } });
  const xhigh = decodeMessages({ output_config: { effort: 'max' } });
  for (const flavor of ['vllm', 'sglang', 'openai'] as const)
    t.equal(upstreamEffort(high, upstreamFields(flavor, [])), 'high', flavor);
  for (const flavor of ['llama-server', 'tgi', 'ollama'] as const)
    t.equal(upstreamEffort(high, upstreamFields(flavor, [])), undefined, flavor);
  t.equal(upstreamEffort(xhigh, upstreamFields('vllm', [])), undefined, "vLLM's Literal has no xhigh");
  t.equal(upstreamEffort(xhigh, upstreamFields('openai', [])), 'xhigh');
  t.equal(upstreamEffort(decodeChat({ reasoning_effort: 'none' }), upstreamFields('vllm', [])), undefined);
});
