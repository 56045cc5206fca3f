import t from 'tap';
import { createChatDecoder } from '../../../../dialects/chat/decode.js';
import type { ChatRequest } from '../../../../core/canonical.js';
import { GatewayError } from '../../../../core/errors.js';

const MODEL = 'qwen3-8b';
const valid = { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] };
const CONTEXT = 32768;
const decoder = createChatDecoder({ modelId: MODEL, maxOutputTokens: CONTEXT });
const decode = (body: unknown): ChatRequest => decoder(body).request;

function rejection(body: unknown): GatewayError {
  try {
    decode(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('the decoder accepted the body');
}

t.test('a minimal request decodes to itself', async (t) => {
  t.same(decode(valid), valid);
});

t.test('messages is required (spec rule 2)', async (t) => {
  const error = rejection({ model: MODEL });
  t.equal(error.status, 400);
  t.equal(error.param, 'messages');
  t.match(error.message, /Missing required field 'messages'/);
});

t.test('model is required and must be the served id (404 model_not_found, param model)', async (t) => {
  t.equal(rejection({ messages: valid.messages }).param, 'model');
  const error = rejection({ ...valid, model: 'gpt-4o' });
  t.equal(error.status, 404);
  t.equal(error.code, 'GW_ERR_MODEL_NOT_FOUND');
  t.equal(error.param, 'model');
});

t.test('temperature must be within 0..2', async (t) => {
  t.equal(rejection({ ...valid, temperature: 2.5 }).param, 'temperature');
  t.equal(rejection({ ...valid, temperature: -0.1 }).param, 'temperature');
  t.ok(decode({ ...valid, temperature: 2 }));
});

t.test('top_p must be within 0..1', async (t) => {
  t.equal(rejection({ ...valid, top_p: 1.5 }).param, 'top_p');
});

t.test('max_tokens must be a positive integer', async (t) => {
  t.equal(rejection({ ...valid, max_tokens: 0 }).param, 'max_tokens');
  t.equal(rejection({ ...valid, max_tokens: 2.5 }).param, 'max_tokens');
  t.equal(rejection({ ...valid, max_tokens: '10' }).param, 'max_tokens');
});

t.test('max_completion_tokens is accepted as max_tokens', async (t) => {
  t.same(decode({ ...valid, max_completion_tokens: 7 }), { ...valid, max_tokens: 7 });
});

t.test('wrong types name the field', async (t) => {
  const error = rejection({ ...valid, messages: 'hello' });
  t.equal(error.param, 'messages');
  t.match(error.message, /expected array/);
  t.equal(rejection({ ...valid, stream: 'yes' }).param, 'stream');
  t.equal(rejection({ ...valid, messages: [{ role: 'robot', content: 'x' }] }).param, 'messages[0].role');
  t.equal(rejection({ ...valid, messages: [{ role: 'user' }] }).param, 'messages[0].content');
});

t.test('a body that is not an object is refused', async (t) => {
  t.equal(rejection([1, 2]).status, 400);
  t.equal(rejection('text').status, 400);
});

t.test('only text content parts are accepted by a text-only model', async (t) => {
  const error = rejection({
    ...valid,
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
  });
  t.equal(error.param, 'messages[0].content[0].type');
});

t.test('tools must be functions with a name', async (t) => {
  t.equal(rejection({ ...valid, tools: [{ type: 'function', function: {} }] }).param, 'tools[0].function.name');
});

t.test('a search tool is refused on chat completions (spec rule 7)', async (t) => {
  const error = rejection({ ...valid, tools: [{ type: 'web_search_preview' }] });
  t.equal(error.status, 400);
  t.equal(error.param, 'tools[0].type');
  t.match(error.message, /Web search is not supported/);
  t.equal(rejection({ ...valid, web_search_options: {} }).param, 'web_search_options');
});

t.test('any other non-function tool is refused', async (t) => {
  const error = rejection({ ...valid, tools: [{ type: 'code_interpreter' }] });
  t.equal(error.param, 'tools[0].type');
  t.match(error.message, /only 'function' tools/);
});

t.test('tool_choice takes auto, required, none or a named function that exists', async (t) => {
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
  for (const choice of ['auto', 'required', 'none']) t.ok(decode({ ...valid, tools, tool_choice: choice }));
  t.ok(decode({ ...valid, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }));
  t.equal(rejection({ ...valid, tools, tool_choice: 'sometimes' }).param, 'tool_choice');
  t.equal(
    rejection({ ...valid, tools, tool_choice: { type: 'function', function: { name: 'nope' } } }).param,
    'tool_choice.function.name',
  );
});

t.test('a tool round trip is accepted: assistant tool_calls, then a tool message', async (t) => {
  const messages = [
    { role: 'user', content: 'weather?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
  ];
  t.ok(decode({ ...valid, messages }));
  t.equal(rejection({ ...valid, messages: [{ role: 'tool', content: 'x' }] }).param, 'messages[0].tool_call_id');
});

t.test('fields the gateway does not know are passed on unchanged', async (t) => {
  t.same(decode({ ...valid, seed: 3, top_k: 20 }), { ...valid, seed: 3, top_k: 20 });
});

t.test("developer messages reach the model as system messages (open models' templates drop developer)", async (t) => {
  const decoded = decode({ ...valid, messages: [{ role: 'developer', content: 'Be brief.' }, ...valid.messages] });
  t.same(decoded.messages[0], { role: 'system', content: 'Be brief.' });
});

t.test('a tool_choice without tools is dropped, not sent to an upstream that refuses it', async (t) => {
  t.notOk('tool_choice' in decode({ ...valid, tool_choice: 'auto' }));
});

t.test(
  'regression: "stop": null on chat gave 500 (a null field is one not set: the canonical request has no top-level nulls)',
  async (t) => {
    const decoded = decode({ ...valid, stop: null, temperature: null, max_tokens: null, max_completion_tokens: 9 });
    t.same(decoded, { ...valid, max_tokens: 9 });
  },
);

t.test("the encoders get the client's stream_options as the echo", async (t) => {
  t.same(decoder({ ...valid, stream: true, stream_options: { include_usage: true } }).echo, {
    includeUsage: true,
    continuousUsage: false,
    tierAsked: false,
  });
  t.same(decoder({ ...valid, stream: true, stream_options: { continuous_usage_stats: true } }).echo, {
    includeUsage: false,
    continuousUsage: true,
    tierAsked: false,
  });
  t.same(decoder({ ...valid, stream_options: null }).echo, {
    includeUsage: false,
    continuousUsage: false,
    tierAsked: false,
  });
});

t.test(
  'service_tier is one of auto, default, flex, priority, carried gateway-side (never an extra field); any other value is a 400 naming service_tier',
  async (t) => {
    for (const tier of ['auto', 'default', 'flex', 'priority']) {
      const decoded = decoder({ ...valid, service_tier: tier });
      t.same(decoded.request, { ...valid, gateway: { service_tier: tier } }, tier);
      t.equal(decoded.echo.tierAsked, true);
    }
    t.same(decode({ ...valid, service_tier: null }), valid);
    const refused = rejection({ ...valid, service_tier: 'scale' });
    t.equal(refused.status, 400);
    t.equal(refused.param, 'service_tier');
    t.match(refused.message, /Invalid value for 'service_tier'/);
  },
);

t.test("a chat body cannot set the promptcache plugin's gateway-side field", async (t) => {
  t.same(decode({ ...valid, cache_blocks: [{ place: 't', block: {}, mark: {}, param: 'x' }] }), valid);
});

t.test(
  'fields the canonical request does not model are kept apart as extra_fields (sent where upstream.extra_fields lists them)',
  async (t) => {
    const kwargs = { enable_thinking: false };
    t.same(decode({ ...valid, min_p: 0.1, chat_template_kwargs: kwargs, ignore_eos: null }), {
      ...valid,
      extra_fields: { min_p: 0.1, chat_template_kwargs: kwargs },
    });
  },
);
