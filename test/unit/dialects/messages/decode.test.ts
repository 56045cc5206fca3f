import t from 'tap';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import type { ChatRequest } from '../../../../core/canonical.js';
import { refusal } from '../../../helpers/rejection.js';

const MODEL = 'qwen3-8b';
const decoders = createMessagesDecoders(MODEL, 8000);
const decode = (body: unknown): ChatRequest => decoders.decode(body).request;
const base = { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };

t.test('max_tokens is required (spec rule 1) and an integer within 1..8000', async (t) => {
  const missing = refusal(() => decode({ model: MODEL, messages: base.messages }));
  t.equal(missing.status, 400);
  t.equal(missing.kind, 'invalid_request');
  t.equal(missing.param, 'max_tokens');
  t.equal(refusal(() => decode({ ...base, max_tokens: 0 })).param, 'max_tokens');
  t.equal(refusal(() => decode({ ...base, max_tokens: 8001 })).param, 'max_tokens');
  t.equal(refusal(() => decode({ ...base, max_tokens: 1.5 })).param, 'max_tokens');
  t.equal(createMessagesDecoders(MODEL, 100).decode({ ...base, max_tokens: 100 }).request.max_tokens, 100);
  t.equal(
    refusal(() => createMessagesDecoders(MODEL, 100).decode({ ...base, max_tokens: 101 })).param,
    'max_tokens',
    'the limit comes from the config',
  );
});

t.test('the model must be the served id: 404 not found', async (t) => {
  const error = refusal(() => decode({ ...base, model: 'claude-3' }));
  t.equal(error.status, 404);
  t.equal(error.param, 'model');
});

t.test('roles and content shapes are checked', async (t) => {
  t.equal(refusal(() => decode({ ...base, messages: [{ role: 'tool', content: 'x' }] })).param, 'messages[0].role');
  t.equal(refusal(() => decode({ ...base, messages: [{ role: 'user' }] })).param, 'messages[0].content');
  t.equal(
    refusal(() => decode({ ...base, messages: [{ role: 'user', content: [{ type: 'text' }] }] })).param,
    'messages[0].content[0].text',
  );
});

t.test('system as a string or text blocks, and role system messages, fold into one system prompt', async (t) => {
  const request = decode({
    ...base,
    system: [
      { type: 'text', text: 'A', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'B' },
    ],
    messages: [{ role: 'system', content: 'C' }, ...base.messages],
  });
  t.same(request.messages, [
    { role: 'system', content: 'A\nB\n\nC' },
    { role: 'user', content: 'Hi' },
  ]);
  t.same(decode({ ...base, system: 'S' }).messages[0], { role: 'system', content: 'S' });
});

t.test(
  "tool_use and tool_result become tool_calls and tool messages, the results before the user's text",
  async (t) => {
    const request = decode({
      ...base,
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'thanks' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
          ],
        },
      ],
    });
    t.same(request.messages.slice(1), [
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [{ id: '1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      // The ids in the dialect's form (`toolu_…`) reach the upstream without it (core/tool-call-ids.ts).
      { role: 'tool', tool_call_id: '1', content: 'sunny' },
      { role: 'user', content: 'thanks' },
    ]);
  },
);

t.test('a tool_result marked is_error says so to the model', async (t) => {
  const request = decode({
    ...base,
    messages: [
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't', is_error: true, content: [{ type: 'text', text: 'boom' }] }],
      },
    ],
  });
  t.same(request.messages[0], { role: 'tool', tool_call_id: 't', content: 'Error: boom' });
});

t.test(
  "a signed thinking block goes back as its turn's reasoning_content, listed for the core to verify",
  async (t) => {
    const request = decode({
      ...base,
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'a' },
          ],
        },
        { role: 'user', content: 'q2' },
      ],
    });
    t.same(request.messages[1], { role: 'assistant', content: 'a', reasoning_content: 'hmm' });
    t.same(request.gateway?.thinking_replay, [{ param: 'messages[1].content[0]', thinking: 'hmm', signature: 's' }]);
  },
);

t.test('unsigned thinking and redacted_thinking blocks are accepted and kept out of the prompt', async (t) => {
  const request = decode({
    ...base,
    messages: [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: '' },
          { type: 'thinking', thinking: 'more' },
          { type: 'redacted_thinking', data: 'x' },
          { type: 'text', text: 'a' },
        ],
      },
      { role: 'user', content: 'q2' },
    ],
  });
  t.same(request.messages[1], { role: 'assistant', content: 'a' });
  t.equal(request.gateway?.thinking_replay, undefined);
});

t.test('image and document blocks are refused with 400 naming the block, never dropped', async (t) => {
  const error = refusal(() =>
    decode({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'x' } }] },
      ],
    }),
  );
  t.equal(error.status, 400);
  t.equal(error.param, 'messages[0].content[0].type');
  t.match(error.message, /reads text only/);
  t.equal(
    refusal(() =>
      decode({
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'document' }] }] },
        ],
      }),
    ).status,
    400,
  );
});

t.test(
  'client tools become function tools; the search tool becomes web_search; other server tools are refused (spec rule 6)',
  async (t) => {
    const request = decode({
      ...base,
      tools: [
        {
          name: 'get_weather',
          description: 'd',
          input_schema: { type: 'object' },
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
    t.same(request.tools, [
      { type: 'function', function: { name: 'get_weather', description: 'd', parameters: { type: 'object' } } },
    ]);
    const search = decode({ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search' }] });
    t.equal(search.tools, undefined, 'the search plugin adds its function');
    t.same(search.gateway?.web_search, {
      max_uses: 5,
      context_size: 'medium',
      unavailable: {
        message: "The server tool 'web_search_20250305' needs web search, which is not enabled on this gateway.",
        param: 'tools[0].type',
      },
    });
    for (const type of ['web_fetch_20250910', 'code_execution_20250522', 'bash_20250124']) {
      const error = refusal(() => decode({ ...base, tools: [{ type, name: 'x' }] }));
      t.equal(error.status, 400, type);
      t.equal(error.param, 'tools[0].type');
    }
  },
);

t.test("tool_choice maps the spec's strings and the object forms", async (t) => {
  const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }];
  const choice = (tool_choice: unknown): unknown => decode({ ...base, tools, tool_choice }).tool_choice;
  t.equal(choice('auto'), 'auto');
  t.equal(choice('required'), 'required');
  t.same(choice('get_weather'), { type: 'function', function: { name: 'get_weather' } });
  t.equal(choice({ type: 'any' }), 'required');
  t.equal(choice({ type: 'none' }), 'none');
  t.same(choice({ type: 'tool', name: 'get_weather' }), { type: 'function', function: { name: 'get_weather' } });
  t.equal(
    decode({ ...base, tools, tool_choice: { type: 'auto', disable_parallel_tool_use: true } }).parallel_tool_calls,
    false,
  );
  t.equal(refusal(() => choice({ type: 'tool', name: 'nope' })).param, 'tool_choice');
});

t.test(
  'stop_sequences, temperature, top_p and top_k are forwarded, thinking is the switch; other client fields are accepted and ignored',
  async (t) => {
    const request = decode({
      ...base,
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 20,
      metadata: { user_id: 'u' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      service_tier: 'auto',
      context_management: {},
    });
    t.same(request, {
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 20,
      stop: ['END'],
      gateway: { enable_thinking: true },
    });
  },
);

t.test('a streamed request asks the upstream for running usage (message_start reports input tokens)', async (t) => {
  t.same(decode({ ...base, stream: true }).stream_options, { continuous_usage_stats: true });
});

t.test('count_tokens: messages is required, with "Missing required field" (spec rule 8)', async (t) => {
  const error = refusal(() => decoders.decodeCount({ model: MODEL }));
  t.equal(error.status, 400);
  t.match(error.message, /Missing required field/);
  t.equal(error.param, 'messages');
});

t.test('count_tokens: max_tokens and stream are refused, and max_tokens is not required', async (t) => {
  t.equal(refusal(() => decoders.decodeCount({ ...base })).param, 'max_tokens');
  t.equal(
    refusal(() => decoders.decodeCount({ model: MODEL, messages: base.messages, stream: false })).param,
    'stream',
  );
  const request = decoders.decodeCount({
    model: MODEL,
    system: 'S',
    messages: base.messages,
    tools: [{ name: 'f', input_schema: { type: 'object' } }],
  });
  t.equal(request.max_tokens, undefined);
  t.equal(request.tools?.length, 1, 'tool definitions count too');
});

t.test('the search tool: max_uses, domains (not both), user_location, its name; one only', async (t) => {
  const tool = { type: 'web_search_20250305', name: 'web_search' };
  const options = decode({
    ...base,
    tools: [
      { name: 'f', input_schema: { type: 'object' } },
      {
        ...tool,
        max_uses: 2,
        allowed_domains: ['a.example'],
        user_location: { type: 'approximate', city: 'Lisbon', country: 'PT' },
      },
    ],
  }).gateway?.web_search;
  t.match(options, {
    max_uses: 2,
    allowed_domains: ['a.example'],
    user_location: { type: 'approximate', city: 'Lisbon', country: 'PT' },
    unavailable: { param: 'tools[1].type' },
  });
  t.equal(refusal(() => decode({ ...base, tools: [{ ...tool, max_uses: 0 }] })).param, 'tools[0].max_uses');
  t.equal(
    refusal(() => decode({ ...base, tools: [{ ...tool, allowed_domains: ['a'], blocked_domains: ['b'] }] })).param,
    'tools[0].blocked_domains',
  );
  t.equal(refusal(() => decode({ ...base, tools: [{ ...tool, name: 'search' }] })).param, 'tools[0].name');
  t.equal(refusal(() => decode({ ...base, tools: [tool, tool] })).param, 'tools[1].type');
  t.equal(
    refusal(() => decode({ ...base, tools: [tool, { name: 'web_search', input_schema: { type: 'object' } }] })).param,
    'tools[1].name',
  );
  t.same(decode({ ...base, tools: [tool], tool_choice: { type: 'tool', name: 'web_search' } }).tool_choice, {
    type: 'function',
    function: { name: 'web_search' },
  });
});

t.test(
  "regression: Claude Code's WebSearch tool (allowed_domains with an empty blocked_domains) got 400 'not both'",
  async (t) => {
    const tool = { type: 'web_search_20250305', name: 'web_search', max_uses: 8 };
    const options = decode({
      ...base,
      tools: [{ ...tool, allowed_domains: ['docs.example'], blocked_domains: [] }],
    }).gateway?.web_search;
    t.same(options?.allowed_domains, ['docs.example']);
    t.equal(options?.blocked_domains, undefined, 'an empty list is not set');
    const both = decode({ ...base, tools: [{ ...tool, allowed_domains: [], blocked_domains: [] }] }).gateway
      ?.web_search;
    t.equal(both?.allowed_domains, undefined);
    t.equal(both?.blocked_domains, undefined);
  },
);

t.test(
  'replayed server_tool_use and web_search_tool_result blocks split the turn around a tool message for the plugin',
  async (t) => {
    const result = {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_1',
      content: [{ type: 'web_search_result', url: 'https://a.example', title: 'A', encrypted_content: 'x' }],
    };
    const request = decode({
      ...base,
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'a' } },
            result,
            { type: 'text', text: 'A says so [1]', citations: [{ type: 'web_search_result_location' }] },
            { type: 'text', text: '.' },
          ],
        },
        { role: 'user', content: 'more' },
      ],
    });
    t.same(request.messages, [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'srvtoolu_1', type: 'function', function: { name: 'web_search', arguments: '{"query":"a"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'srvtoolu_1', content: '' },
      { role: 'assistant', content: 'A says so [1].' },
      { role: 'user', content: 'more' },
    ]);
    t.same(request.gateway?.web_search_replay, [
      { tool_call_id: 'srvtoolu_1', param: 'messages[1].content[2]', content: result.content },
    ]);
    const fetch = refusal(() =>
      decode({
        ...base,
        messages: [
          { role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_fetch', input: {} }] },
        ],
      }),
    );
    t.equal(fetch.param, 'messages[0].content[0].name');
    const orphan = refusal(() =>
      decode({ ...base, messages: [{ role: 'assistant', content: [{ ...result, tool_use_id: 'other' }] }] }),
    );
    t.equal(orphan.param, 'messages[0].content[0].tool_use_id');
    t.equal(
      refusal(() => decode({ ...base, messages: [{ role: 'user', content: [result] }] })).param,
      'messages[0].content[0].type',
      'not in a user turn',
    );
  },
);

t.test("the encoders get the client's stop sequences as the echo", async (t) => {
  t.same(decoders.decode({ ...base, stop_sequences: ['END', 'STOP'] }).echo, { stopSequences: ['END', 'STOP'] });
  t.same(decoders.decode(base).echo, { stopSequences: [] });
});

t.test(
  "cache marks: the prompt's blocks in cache order travel in the canonical request, only when some block is marked",
  async (t) => {
    t.equal(decode(base).gateway?.cache_blocks, undefined);
    const tools = [{ name: 'f', input_schema: { type: 'object' } }];
    const request = decode({
      ...base,
      tools,
      system: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      ],
    });
    const blocks = request.gateway?.cache_blocks ?? [];
    t.same(
      blocks.map((block) => [block.place, block.param, block.mark]),
      [
        ['t', 'tools[0]', undefined],
        ['s', 'system[0]', { type: 'ephemeral', ttl: '1h' }],
        ['m0:user', 'messages[0].content[0]', undefined],
        ['m1:assistant', 'messages[1].content[0]', undefined],
      ],
    );
    t.same(blocks[2]!.block, { type: 'text', text: 'Hi' }, 'string content is one text block');
    const cut = blocks[1]!.prefix();
    t.same(
      cut.messages,
      [{ role: 'system', content: 'S' }],
      "a block's prefix is the canonical request cut just after it",
    );
    t.equal(cut.tools?.length, 1);
    t.equal(blocks[3]!.prefix().messages.length, 3);
  },
);
