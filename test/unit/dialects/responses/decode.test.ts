import t from 'tap';
import { createResponsesDecoder, type ResponsesDecodeOptions } from '../../../../dialects/responses/decode.js';
import type { ChatRequest } from '../../../../core/canonical.js';
import { GatewayError } from '../../../../core/errors.js';

const MODEL = 'qwen3-8b';
const CONTEXT = 32768;
const off: ResponsesDecodeOptions = { modelId: MODEL, functionTools: false, maxOutputTokens: CONTEXT };
const on: ResponsesDecodeOptions = { modelId: MODEL, functionTools: true, maxOutputTokens: CONTEXT };
const decoders = new Map([off, on].map((options) => [options, createResponsesDecoder(options)]));
const decodeResponses = (body: unknown, options: ResponsesDecodeOptions): ChatRequest =>
  decoders.get(options)!(body).request;
const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

function rejection(body: unknown, options = off): GatewayError {
  try {
    decodeResponses(body, options);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('decodeResponses accepted the body');
}

t.test('input as a string is one user message; instructions become the system prompt', async (t) => {
  t.same(decodeResponses({ model: MODEL, input: 'Hi', instructions: 'Be brief.' }, off), {
    model: MODEL,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
  });
});

t.test('input items: messages with input_text and output_text parts, short and typed forms', async (t) => {
  const request = decodeResponses(
    {
      model: MODEL,
      input: [
        { role: 'user', content: 'first' },
        {
          type: 'message',
          role: 'assistant',
          id: 'msg_1',
          status: 'completed',
          content: [{ type: 'output_text', text: 'answer', annotations: [] }],
        },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'a' },
            { type: 'input_text', text: 'b' },
          ],
        },
      ],
    },
    off,
  );
  t.same(request.messages, [
    { role: 'user', content: 'first' },
    { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    },
  ]);
});

t.test('instructions, system and developer messages fold into one leading system prompt', async (t) => {
  const request = decodeResponses(
    {
      model: MODEL,
      instructions: 'Rules.',
      input: [
        { role: 'developer', content: [{ type: 'input_text', text: 'Dev one' }] },
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Later system' },
      ],
    },
    off,
  );
  t.same(request.messages, [
    { role: 'system', content: 'Rules.\n\nDev one\n\nLater system' },
    { role: 'user', content: 'Hi' },
  ]);
});

t.test('web_search_call items of earlier rounds (and reasoning items) are skipped (spec 2.7)', async (t) => {
  const request = decodeResponses(
    {
      model: MODEL,
      input: [
        { role: 'user', content: 'Search it' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'it' } },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        {
          type: 'message',
          role: 'assistant',
          content: [
            {
              type: 'output_text',
              text: 'Found',
              annotations: [{ type: 'url_citation', start_index: 0, end_index: 5, url: 'https://x', title: 'x' }],
            },
          ],
        },
        { role: 'user', content: 'Thanks' },
      ],
    },
    off,
  );
  t.same(
    request.messages.map((message) => message.role),
    ['user', 'assistant', 'user'],
  );
});

t.test(
  'max_tokens (the spec) and max_output_tokens (OpenAI) both set the limit; temperature and top_p pass',
  async (t) => {
    t.equal(decodeResponses({ model: MODEL, input: 'x', max_tokens: 7 }, off).max_tokens, 7);
    t.equal(decodeResponses({ model: MODEL, input: 'x', max_output_tokens: 9 }, off).max_tokens, 9);
    const request = decodeResponses({ model: MODEL, input: 'x', temperature: 0.2, top_p: 0.9, stream: true }, off);
    t.equal(request.temperature, 0.2);
    t.equal(request.top_p, 0.9);
    t.equal(request.stream, true);
  },
);

t.test('presence_penalty and frequency_penalty pass to the upstream', async (t) => {
  const request = decodeResponses({ model: MODEL, input: 'x', presence_penalty: 0.5, frequency_penalty: -1 }, off);
  t.equal(request.presence_penalty, 0.5);
  t.equal(request.frequency_penalty, -1);
});

t.test(
  'fields real clients send are accepted and ignored; reasoning.effort is the thinking switch, prompt_cache_key the conversation key; service_tier is carried for the meter',
  async (t) => {
    const request = decodeResponses(
      {
        model: MODEL,
        input: 'x',
        store: true,
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: 'low', summary: 'auto' },
        metadata: { run: '1' },
        user: 'u',
        truncation: 'auto',
        prompt_cache_key: 'k',
        service_tier: 'auto',
        previous_response_id: null,
        text: { format: { type: 'text' }, verbosity: 'low' },
      },
      off,
    );
    t.same(request, {
      model: MODEL,
      messages: [{ role: 'user', content: 'x' }],
      gateway: { enable_thinking: true, conversation_key: 'k', service_tier: 'auto' },
    });
  },
);

t.test(
  'service_tier is one of auto, default, flex, priority: any other value is a 400 naming service_tier',
  async (t) => {
    for (const tier of ['auto', 'default', 'flex', 'priority'])
      t.equal(decodeResponses({ model: MODEL, input: 'x', service_tier: tier }, off).gateway?.service_tier, tier);
    t.equal(decodeResponses({ model: MODEL, input: 'x', service_tier: null }, off).gateway, undefined);
    const refused = rejection({ model: MODEL, input: 'x', service_tier: 'scale' });
    t.equal(refused.status, 400);
    t.equal(refused.param, 'service_tier');
    t.match(refused.message, /Invalid value for 'service_tier'/);
  },
);

t.test('text.format json_schema becomes the upstream response_format', async (t) => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  const request = decodeResponses(
    { model: MODEL, input: 'x', text: { format: { type: 'json_schema', name: 'out', schema, strict: true } } },
    off,
  );
  t.same(request.response_format, { type: 'json_schema', json_schema: { name: 'out', schema, strict: true } });
});

t.test('input is required (spec rule 3) and model must be the served id (404)', async (t) => {
  const missing = rejection({ model: MODEL });
  t.equal(missing.status, 400);
  t.equal(missing.param, 'input');
  t.match(missing.message, /Missing required field 'input'/);
  t.equal(rejection({ input: 'x' }).param, 'model');
  const unknown = rejection({ model: 'gpt-4o', input: 'x' });
  t.equal(unknown.status, 404);
  t.equal(unknown.code, 'GW_ERR_MODEL_NOT_FOUND');
});

t.test('types and ranges are checked and name the field', async (t) => {
  for (const [body, param] of [
    [{ model: MODEL, input: 42 }, 'input'],
    [{ model: MODEL, input: [] }, 'input'],
    [{ model: MODEL, input: 'x', temperature: 3 }, 'temperature'],
    [{ model: MODEL, input: 'x', top_p: 2 }, 'top_p'],
    [{ model: MODEL, input: 'x', presence_penalty: 3 }, 'presence_penalty'],
    [{ model: MODEL, input: 'x', frequency_penalty: -2.5 }, 'frequency_penalty'],
    [{ model: MODEL, input: 'x', safety_identifier: 7 }, 'safety_identifier'],
    [{ model: MODEL, input: 'x', prompt_cache_key: {} }, 'prompt_cache_key'],
    [{ model: MODEL, input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
    [{ model: MODEL, input: 'x', max_tokens: 1.5 }, 'max_tokens'],
    [{ model: MODEL, input: 'x', instructions: 3 }, 'instructions'],
    [{ model: MODEL, input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    [
      { model: MODEL, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x' }] }] },
      'input[0].content[0].type',
    ],
    [{ model: MODEL, input: [{ type: 'local_shell_call', id: 'x' }] }, 'input[0].type'],
  ] as const) {
    const error = rejection(body);
    t.equal(error.status, 400, param);
    t.equal(error.param, param);
  }
});

t.test('previous_response_id and conversation are refused: the dialect is stateless (spec rule 10)', async (t) => {
  for (const field of ['previous_response_id', 'conversation']) {
    const error = rejection({ model: MODEL, input: 'x', [field]: 'resp_1' });
    t.equal(error.status, 400);
    t.equal(error.param, field);
    t.match(error.message, /stateless/);
    t.match(error.message, /client carries the history/);
  }
  t.match(rejection({ model: MODEL, input: [{ type: 'item_reference', id: 'msg_1' }] }, on), {
    param: 'input[0].type',
    message: /stateless.*store/,
  });
  t.equal(rejection({ model: MODEL, input: 'x', background: true }).param, 'background');
});

t.test('function tools are refused by default, pointing to the other endpoints (spec rule 5)', async (t) => {
  const error = rejection({ model: MODEL, input: 'x', tools: [WEATHER] });
  t.equal(error.status, 400);
  t.equal(error.param, 'tools[0].type');
  t.match(error.message, /\/v1\/chat\/completions/);
  t.match(error.message, /\/v1\/messages/);
  t.equal(
    rejection({ model: MODEL, input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] }).param,
    'input[0].type',
  );
  t.equal(
    rejection({ model: MODEL, input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }] }).param,
    'input[0].type',
  );
  t.equal(rejection({ model: MODEL, input: 'x', tool_choice: { type: 'function', name: 'f' } }).param, 'tool_choice');
});

t.test(
  'a search tool (and its alias) becomes web_search for the search plugin, which refuses it when absent',
  async (t) => {
    for (const type of ['web_search', 'web_search_preview']) {
      const request = decodeResponses({ model: MODEL, input: 'x', tools: [{ type }] }, off);
      t.equal(request.tools, undefined);
      t.match(request.gateway?.web_search, {
        max_uses: 5,
        context_size: 'medium',
        unavailable: { param: 'tools[0].type', message: /search is not enabled/i },
      });
    }
    const options = decodeResponses(
      {
        model: MODEL,
        input: 'x',
        tools: [
          {
            type: 'web_search',
            search_context_size: 'low',
            filters: { allowed_domains: ['a.example'] },
            user_location: { type: 'approximate', city: 'Paris' },
          },
        ],
      },
      off,
    ).gateway?.web_search;
    t.match(options, { context_size: 'low', allowed_domains: ['a.example'], user_location: { city: 'Paris' } });
    t.equal(
      rejection({ model: MODEL, input: 'x', tools: [{ type: 'web_search' }, { type: 'web_search_preview' }] }).param,
      'tools[1].type',
    );
    t.equal(
      rejection({ model: MODEL, input: 'x', tools: [{ type: 'web_search' }, { ...WEATHER, name: 'web_search' }] }, on)
        .param,
      'tools[1].name',
    );
    t.equal(
      rejection({ model: MODEL, input: 'x', tools: [{ type: 'web_search', user_location: { city: 3 } }] }).param,
      'tools[0].user_location.city',
    );
  },
);

t.test('other tool types are refused and named', async (t) => {
  for (const type of ['file_search', 'code_interpreter', 'computer_use_preview', 'mcp']) {
    t.match(rejection({ model: MODEL, input: 'x', tools: [{ type }] }, on), {
      param: 'tools[0].type',
      message: new RegExp(`'${type}' is not supported`),
    });
  }
});

t.test('with the switch on: function tools, tool_choice, and a tool round trip in the input', async (t) => {
  const request = decodeResponses(
    {
      model: MODEL,
      tools: [WEATHER],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      input: [
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
          status: 'completed',
        },
        { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'Rain' }] },
      ],
    },
    on,
  );
  t.same(request.tools, [
    { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: WEATHER.parameters } },
  ]);
  t.same(request.tool_choice, { type: 'function', function: { name: 'get_weather' } });
  t.equal(request.parallel_tool_calls, false);
  t.same(request.messages, [
    { role: 'user', content: 'Weather in Paris and Oslo?' },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'Checking.' }],
      tool_calls: [
        { id: '1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: '2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    },
    // The call ids in the dialect's form (`call_…`) reach the upstream without it (core/tool-call-ids.ts).
    { role: 'tool', tool_call_id: '1', content: 'Sunny' },
    { role: 'tool', tool_call_id: '2', content: [{ type: 'text', text: 'Rain' }] },
  ]);
});

t.test('with the switch on: a tool_choice naming a missing tool is refused; without tools it is dropped', async (t) => {
  t.equal(
    rejection({ model: MODEL, input: 'x', tools: [WEATHER], tool_choice: { type: 'function', name: 'nope' } }, on)
      .param,
    'tool_choice.name',
  );
  t.notOk('tool_choice' in decodeResponses({ model: MODEL, input: 'x', tool_choice: 'required' }, on));
});
