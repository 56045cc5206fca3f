// Server-side web search in the message dialect (spec 2.2, 2.3, rule 6; docs/wire.md), driven by the real
// @anthropic-ai/sdk against the gateway with the search plugin (local provider, its demo corpus) and the
// sim, whose search rule calls `web_search` for each `search: <query>` and then cites the results.
import Anthropic from '@anthropic-ai/sdk';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { present } from '../helpers/present.js';
import { rejection } from '../helpers/rejection.js';
import { startStack, type Stack } from '../helpers/stack.js';

const MODEL = 'qwen3-8b';
const SEARCH = { type: 'web_search_20250305' as const, name: 'web_search' as const };
const WEATHER = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};
const PROBE = fileURLToPath(new URL('../fixtures/searches-probe.mjs', import.meta.url));

type Block = Anthropic.ContentBlock;
type SimMessage = { role: string; content: string | null; tool_calls?: Array<{ function: { name: string } }> };

let stack: Stack;
t.before(async () => {
  stack = await startStack({
    yaml: `plugins:\n  - path: ${JSON.stringify(PROBE)}\n  - name: search\n    options: { provider: local }\n`,
  });
});
t.teardown(() => stack.close());

const client = (): Anthropic => new Anthropic({ apiKey: 'sk-test', baseURL: stack.gateway.url, maxRetries: 0 });
const ask = (content: string, tools: Anthropic.ToolUnion[] = [SEARCH]): Anthropic.MessageCreateParamsNonStreaming => ({
  model: MODEL,
  max_tokens: 400,
  tools,
  messages: [{ role: 'user', content }],
});

/** The last request the sim received: the conversation the model saw. */
function lastSimMessages(): SimMessage[] {
  return (stack.sim.requests().at(-1)?.body as { messages: SimMessage[] }).messages;
}

/** A message with what differs between two answers to one prompt (ids, sealed values) blanked out. */
function comparable(message: Anthropic.Message): unknown {
  // The stream helper adds `parsed_output` (structured outputs), which a created message does not have.
  // The sim's prefix cache decides how the prompt splits into input and cache reads: compare their sum.
  const { parsed_output: _parsed, usage, ...rest } = message as Anthropic.Message & { parsed_output?: unknown };
  const { input_tokens: input, cache_read_input_tokens: read, ...counts } = usage;
  Object.assign(rest, { usage: { ...counts, prompt: input + (read ?? 0) } });
  return JSON.parse(
    JSON.stringify(rest, (key, value: unknown) =>
      key === 'id' || key === 'tool_use_id' || key === 'encrypted_content' || key === 'encrypted_index' ? '…' : value,
    ),
  );
}

const ANSWER = ['server_tool_use', 'web_search_tool_result', 'text', 'text', 'text'];

t.test(
  'messages.create: server_tool_use, then web_search_tool_result, then text with citations; no tool_use stop',
  async (t) => {
    const message = await client().messages.create(ask('search: lisbon weather'));
    t.same(
      message.content.map((block) => block.type),
      ANSWER,
      'the text splits after each cited claim',
    );
    t.equal(message.stop_reason, 'end_turn');
    const [use, result, first, second, rest] = message.content as [
      Anthropic.ServerToolUseBlock,
      Anthropic.WebSearchToolResultBlock,
      Anthropic.TextBlock,
      Anthropic.TextBlock,
      Anthropic.TextBlock,
    ];
    t.match(use, { name: 'web_search', input: { query: 'lisbon weather' } });
    t.match(use.id, /^srvtoolu_/);
    t.equal(result.tool_use_id, use.id);
    t.ok(Array.isArray(result.content));
    const results = result.content as Anthropic.WebSearchResultBlock[];
    t.equal(results.length, 4, 'the four documents of the demo corpus that match');
    t.match(results[0], {
      type: 'web_search_result',
      url: 'https://weather.example/forecast/lisbon',
      title: 'Lisbon weather forecast',
      page_age: 'June 20, 2025',
      encrypted_content: /^[\w-]{100,}$/,
    });
    t.equal(
      first.text,
      'According to Lisbon weather forecast [1]',
      'the model cites result 1 with a marker after a few words of its title',
    );
    t.equal(second.text, '. According to Paris weather forecast [2]');
    t.same(rest, { type: 'text', text: '.' }, 'uncited text has no citations');
    t.same(
      first.citations?.map(
        (citation) => citation.type === 'web_search_result_location' && [citation.url, citation.title],
      ),
      [['https://weather.example/forecast/lisbon', 'Lisbon weather forecast']],
    );
    t.match(first.citations?.[0], {
      cited_text: /^Lisbon, Portugal: sunny and warm this week\./,
      encrypted_index: /^[\w-]{40,}$/,
    });
    t.match(second.citations?.[0], { url: 'https://weather.example/forecast/paris' });
    t.equal(message.usage.server_tool_use?.web_search_requests, 1);
    t.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 0);
  },
);

t.test(
  'the model saw the results as a tool result (numbered, with their text) and the citing note, in one client call',
  async (t) => {
    const before = stack.sim.requests().length;
    await client().messages.create(ask('search: lisbon weather'));
    t.equal(stack.sim.requests().length - before, 2, 'two upstream calls: the search call, then the answer');
    const messages = lastSimMessages();
    t.match(messages[0], { role: 'system', content: /web_search.*\[1\]/s });
    t.match(messages.at(-2), { role: 'assistant', tool_calls: [{ function: { name: 'web_search' } }] });
    t.match(messages.at(-1), {
      role: 'tool',
      content:
        /^\[1\] Lisbon weather forecast\nURL: https:\/\/weather\.example\/forecast\/lisbon\n.*Lisbon, Portugal: sunny/s,
    });
  },
);

t.test('usage sums every round: the input tokens of both upstream calls', async (t) => {
  const before = stack.sim.requests().length;
  const message = await client().messages.create(ask('search: lisbon weather'));
  const calls = stack.sim.requests().slice(before);
  t.equal(calls.length, 2);
  // The sim counts each prompt exactly; the second prompt holds the first and the results, so it is much longer.
  t.ok(
    message.usage.input_tokens + present(message.usage.cache_read_input_tokens, 'cache_read_input_tokens') > 600,
    'both prompts are billed',
  );
});

t.test(
  'messages.stream: the events, input_json_delta and citations_delta, and finalMessage() equal to the body',
  async (t) => {
    const params = ask('search: lisbon weather');
    const stream = client().messages.stream(params);
    const events: Anthropic.MessageStreamEvent[] = [];
    stream.on('streamEvent', (event) => events.push(event));
    const final = await stream.finalMessage();
    const body = await client().messages.create(params);
    t.same(comparable(final), comparable(body), 'the streamed message is the non-streamed one');
    t.same(
      final.content.map((block) => block.type),
      ANSWER,
    );
    const starts = events.filter((event) => event.type === 'content_block_start');
    t.same(
      starts.map((event) => event.index),
      [0, 1, 2, 3, 4],
      'contiguous indices',
    );
    t.match(starts[0], { content_block: { type: 'server_tool_use', name: 'web_search', input: {} } });
    t.match(starts[1], { content_block: { type: 'web_search_tool_result', content: [{ type: 'web_search_result' }] } });
    const deltas = events
      .filter((event) => event.type === 'content_block_delta')
      .map((event) => [event.index, event.delta.type]);
    t.same(deltas[0], [0, 'input_json_delta']);
    t.ok(deltas.some(([index, type]) => index === 2 && type === 'citations_delta'));
    t.ok(deltas.some(([index, type]) => index === 3 && type === 'citations_delta'));
    const last = events.filter((event) => event.type === 'message_delta').at(-1);
    t.equal(last?.type === 'message_delta' ? last.usage.server_tool_use?.web_search_requests : undefined, 1);
    t.equal(events[0]?.type, 'message_start');
    t.equal(events.at(-1)?.type, 'message_stop');
    t.equal(final.usage.server_tool_use?.web_search_requests, 1);
    t.equal(final.stop_reason, 'end_turn');
  },
);

t.test(
  'max_uses 2: the third search is an error block max_uses_exceeded, and the model answers from what it has',
  async (t) => {
    const message = await client().messages.create(
      ask('search: lisbon weather search: carbonara recipe search: tokyo weather', [{ ...SEARCH, max_uses: 2 }]),
    );
    t.same(
      message.content.map((block) => block.type),
      [
        'server_tool_use',
        'web_search_tool_result',
        'server_tool_use',
        'web_search_tool_result',
        'server_tool_use',
        'web_search_tool_result',
        'text',
        'text',
        'text',
      ],
    );
    const results = message.content.filter(
      (block): block is Anthropic.WebSearchToolResultBlock => block.type === 'web_search_tool_result',
    );
    t.ok(Array.isArray(results[0]?.content) && Array.isArray(results[1]?.content));
    t.same(results[2]?.content, { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' });
    t.equal((message.content.at(-3) as Anthropic.TextBlock).text, 'According to Lisbon weather forecast [1]');
    t.equal(message.usage.server_tool_use?.web_search_requests, 2, 'the refused search is not counted');
    t.match(lastSimMessages().at(-1), { role: 'tool', content: /^Error: max_uses_exceeded/ });
  },
);

t.test('allowed_domains: results only from those domains; blocked_domains: none from them; both: 400', async (t) => {
  const urls = (message: Anthropic.Message): string[] =>
    message.content.flatMap((block) =>
      block.type === 'web_search_tool_result' && Array.isArray(block.content)
        ? block.content.map((result) => result.url)
        : [],
    );
  const allowed = urls(
    await client().messages.create(ask('search: lisbon weather', [{ ...SEARCH, allowed_domains: ['travel.example'] }])),
  );
  t.same(allowed, ['https://travel.example/guides/lisbon']);
  const blocked = urls(
    await client().messages.create(
      ask('search: lisbon weather', [{ ...SEARCH, blocked_domains: ['weather.example'] }]),
    ),
  );
  t.same(blocked, ['https://travel.example/guides/lisbon']);
  t.match(
    await rejection(
      client().messages.create(
        ask('search: x', [{ ...SEARCH, allowed_domains: ['a.example'], blocked_domains: ['b.example'] }]),
      ),
    ),
    { status: 400, error: { error: { type: 'invalid_request_error', message: /tools\[0\]\.blocked_domains/ } } },
  );
});

t.test(
  "regression: Claude Code 2.1.330's search tool (allowed_domains beside an empty blocked_domains) got 400 'not both'",
  async (t) => {
    // The tool exactly as Claude Code 2.1.330 sent it; 2.1.332 leaves blocked_domains out, so the test sends it.
    const tool = { ...SEARCH, allowed_domains: ['travel.example'], blocked_domains: [], max_uses: 8 };
    const message = await client().messages.create(ask('search: lisbon weather', [tool]));
    const results = message.content.flatMap((block) =>
      block.type === 'web_search_tool_result' && Array.isArray(block.content) ? block.content.map((r) => r.url) : [],
    );
    t.same(results, ['https://travel.example/guides/lisbon'], 'served, the allowed list applied');
  },
);

t.test(
  'replay: the earlier search turn passed back unchanged works, and the model reads the results again',
  async (t) => {
    const first = await client().messages.create(ask('search: lisbon weather'));
    const followUp = await client().messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [SEARCH],
      messages: [
        { role: 'user', content: 'search: lisbon weather' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'echo: thanks' },
      ],
    });
    t.same(
      followUp.content.map((block) => block.type),
      ['text'],
    );
    t.equal((followUp.content[0] as Anthropic.TextBlock).text, 'thanks');
    const messages = lastSimMessages();
    t.match(
      messages.find((message) => message.role === 'tool'),
      { content: /^\[1\] Lisbon weather forecast\n.*Lisbon, Portugal: sunny and warm/s },
      'the decrypted page is context again',
    );
    t.match(
      messages.find((message) => message.role === 'assistant'),
      { tool_calls: [{ function: { name: 'web_search' } }] },
    );
    t.match(messages.at(-2), {
      role: 'assistant',
      content: 'According to Lisbon weather forecast [1]. According to Paris weather forecast [2].',
    });
    t.equal(followUp.usage.server_tool_use?.web_search_requests, 0);
  },
);

t.test(
  'replay without the search tool in the follow-up works too (the results are verified all the same)',
  async (t) => {
    const first = await client().messages.create(ask('search: lisbon weather'));
    const followUp = await client().messages.create({
      model: MODEL,
      max_tokens: 50,
      messages: [
        { role: 'user', content: 'search: lisbon weather' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'echo: ok' },
      ],
    });
    t.equal((followUp.content[0] as Anthropic.TextBlock).text, 'ok');
    t.equal(followUp.usage.server_tool_use, undefined);
  },
);

t.test('a tampered replay is a 400 naming the field', async (t) => {
  const first = await client().messages.create(ask('search: lisbon weather'));
  const tamper = (change: (result: Anthropic.WebSearchResultBlock) => void): Anthropic.ContentBlockParam[] => {
    const content = structuredClone(first.content) as Block[];
    const result = content.find(
      (block): block is Anthropic.WebSearchToolResultBlock => block.type === 'web_search_tool_result',
    )!;
    change((result.content as Anthropic.WebSearchResultBlock[])[1]!);
    return content as Anthropic.ContentBlockParam[];
  };
  const replay = (content: Anthropic.ContentBlockParam[]): Promise<Anthropic.Message> =>
    client().messages.create({
      model: MODEL,
      max_tokens: 50,
      tools: [SEARCH],
      messages: [
        { role: 'user', content: 'search: lisbon weather' },
        { role: 'assistant', content },
        { role: 'user', content: 'echo: ok' },
      ],
    });
  const flip = (text: string): string =>
    text[10] === 'A' ? `${text.slice(0, 10)}B${text.slice(11)}` : `${text.slice(0, 10)}A${text.slice(11)}`;
  t.match(await rejection(replay(tamper((result) => (result.encrypted_content = flip(result.encrypted_content))))), {
    status: 400,
    error: {
      error: {
        type: 'invalid_request_error',
        message: /'messages\[1\]\.content\[1\]\.content\[1\]\.encrypted_content'/,
      },
    },
  });
  t.match(await rejection(replay(tamper((result) => (result.url = 'https://evil.example/')))), {
    status: 400,
    error: { error: { message: /content\[1\]\.url/ } },
  });
  t.match(await rejection(replay(tamper((result) => (result.encrypted_content = 'not-sealed')))), { status: 400 });
});

t.test(
  'other server tools are a 400 naming the tool; so is a client tool named web_search beside the search tool',
  async (t) => {
    for (const type of ['web_fetch_20250910', 'code_execution_20250522', 'bash_20250124', 'text_editor_20250429']) {
      t.match(
        await rejection(
          client().messages.create(ask('hi', [SEARCH, { type, name: 'x' } as unknown as Anthropic.ToolUnion])),
        ),
        { status: 400, error: { error: { type: 'invalid_request_error', message: new RegExp(type) } } },
        type,
      );
    }
    t.match(await rejection(client().messages.create(ask('hi', [SEARCH, { ...WEATHER, name: 'web_search' }]))), {
      status: 400,
      error: { error: { message: /tools\[1\]\.name/ } },
    });
    t.match(
      await rejection(
        client().messages.create({
          ...ask('hi'),
          messages: [
            { role: 'user', content: 'a' },
            {
              role: 'assistant',
              content: [
                { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_fetch', input: { url: 'https://a.example' } },
              ] as unknown as Anthropic.ContentBlockParam[],
            },
            { role: 'user', content: 'b' },
          ],
        }),
      ),
      { status: 400, error: { error: { message: /web_fetch/ } } },
    );
  },
);

t.test(
  'a client tool and search in one request: the search runs, the client call still ends the turn with tool_use',
  async (t) => {
    const params = ask('search: lisbon weather and get_weather city=Lisbon', [SEARCH, WEATHER]);
    const first = await client().messages.create(params);
    t.same(
      first.content.map((block) => block.type),
      ['server_tool_use', 'web_search_tool_result', 'tool_use'],
    );
    t.equal(first.stop_reason, 'tool_use');
    const use = first.content[2] as Anthropic.ToolUseBlock;
    t.match(use, { name: 'get_weather', input: { city: 'Lisbon' } });
    t.equal(first.usage.server_tool_use?.web_search_requests, 1);
    const streamed = await client().messages.stream(params).finalMessage();
    t.same(comparable(streamed), comparable(first), 'the stream gives the same blocks');
    const second = await client().messages.create({
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 29 C' }] },
      ],
    });
    t.equal(second.stop_reason, 'end_turn');
    t.match((second.content[0] as Anthropic.TextBlock).text, /Sunny, 29 C/);
  },
);

t.test('tool_choice naming web_search forces the first search only', async (t) => {
  const message = await client().messages.create({
    ...ask('search: lisbon weather'),
    tool_choice: { type: 'tool', name: 'web_search' },
  });
  t.same(
    message.content.map((block) => block.type),
    ANSWER,
  );
});

t.test('executed searches are left in exchange.locals.searches for the meter', async (t) => {
  await client().messages.create(ask('search: lisbon weather search: tokyo weather', [{ ...SEARCH, max_uses: 1 }]));
  const line = stack.logs
    .map((text) => JSON.parse(text) as { msg?: string; searches_executed?: number })
    .filter((entry) => entry.msg === 'request')
    .at(-1);
  t.equal(line?.searches_executed, 1, 'one executed, the refused one is not counted');
});

t.test(
  'count_tokens with the search tool counts the real request: the search function and note included',
  async (t) => {
    const request = ask('echo: no search needed here');
    const counted = await client().messages.countTokens({
      model: MODEL,
      messages: request.messages,
      tools: request.tools!,
    });
    const created = await client().messages.create(request);
    t.equal(
      created.content.some((block) => block.type === 'server_tool_use'),
      false,
      'one round, no search',
    );
    t.equal(
      counted.input_tokens,
      created.usage.input_tokens + (created.usage.cache_read_input_tokens ?? 0),
      'the count is the prompt the upstream saw',
    );
    const without = await client().messages.countTokens({ model: MODEL, messages: request.messages });
    t.ok(
      counted.input_tokens > without.input_tokens + 50,
      `the search offer adds tokens (${counted.input_tokens} vs ${without.input_tokens})`,
    );
  },
);

t.test('without the search plugin, replayed search blocks are refused (web search is not enabled)', async (t) => {
  const first = await client().messages.create(ask('search: lisbon weather'));
  const plain = await startStack();
  t.teardown(() => plain.close());
  const other = new Anthropic({ apiKey: 'sk-test', baseURL: plain.gateway.url, maxRetries: 0 });
  t.match(
    await rejection(
      other.messages.create({
        model: MODEL,
        max_tokens: 50,
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: 'echo: ok' },
        ],
      }),
    ),
    {
      status: 400,
      error: { error: { message: /web search is not enabled/ } },
    },
  );
  t.match(await rejection(other.messages.create(ask('search: x'))), {
    status: 400,
    error: { error: { message: /needs web search, which is not enabled/ } },
  });
  const request = ask('search: x');
  t.match(
    await rejection(other.messages.countTokens({ model: MODEL, messages: request.messages, tools: request.tools! })),
    { status: 400, error: { error: { message: /needs web search, which is not enabled/ } } },
    'count_tokens too',
  );
});

t.test(
  'a slow search keeps the stream alive with pings; a search past its timeout is an errored search, not billed',
  async (t) => {
    // A SearxNG stand-in on loopback: "slow" queries are answered when the test lets them, "stuck" ones never.
    let slowAnswered = false;
    const slowAnswers: Array<() => void> = [];
    const answerSlow = (): void => {
      slowAnswered = true;
      for (const answer of slowAnswers.splice(0)) answer();
    };
    const searx = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
      const answer = (): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            query,
            results: [
              {
                url: 'https://slow.example/page',
                title: 'Slow page',
                content: 'It took a while.',
                publishedDate: null,
              },
            ],
          }),
        );
      };
      if (query.includes('stuck')) return;
      if (query.includes('slow') && !slowAnswered) slowAnswers.push(answer);
      else answer();
    });
    await new Promise<void>((resolve) => searx.listen(0, '127.0.0.1', resolve));
    t.teardown(
      () =>
        new Promise<void>((resolve) => {
          searx.closeAllConnections();
          searx.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`;
    const slow = await startStack({
      yaml: `server:\n  sse_ping_ms: 50\nplugins:\n  - path: ${JSON.stringify(PROBE)}\n  - name: search\n    options: { provider: searxng, timeout_ms: 1000, searxng: { url: ${JSON.stringify(url)} } }\n`,
    });
    t.teardown(() => slow.close());
    const response = await fetch(`${slow.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask('search: slow page'), stream: true }),
    });
    // Read until a ping follows the server_tool_use block (the search is waiting), then let the search answer.
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const pinged = (): boolean => {
      const stop = text.indexOf('event: content_block_stop');
      return stop >= 0 && text.includes('event: ping', stop);
    };
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      text += decoder.decode(part.value, { stream: true });
      if (pinged() && !slowAnswered) answerSlow();
    }
    const names = text
      .split('\n')
      .filter((line) => line.startsWith('event: '))
      .map((line) => line.slice(7));
    const stop = names.indexOf('content_block_stop');
    const resultStart = names.indexOf('content_block_start', stop);
    t.ok(
      names.slice(stop, resultStart).includes('ping'),
      'ping events while the search runs, between the server_tool_use block and its result',
    );
    t.ok(text.includes('https://slow.example/page'), "then the slow search's result");
    const other = new Anthropic({ apiKey: 'sk-test', baseURL: slow.gateway.url, maxRetries: 0 });
    // The stuck search never answers: only its timeout_ms ends it.
    const stuck = await other.messages.create(ask('search: stuck page'));
    t.same(stuck.content[1], {
      type: 'web_search_tool_result',
      tool_use_id: stuck.content[0]!.type === 'server_tool_use' ? stuck.content[0]!.id : '',
      content: { type: 'web_search_tool_result_error', error_code: 'unavailable' },
    });
    t.equal(stuck.usage.server_tool_use?.web_search_requests, 0, 'an errored search is not counted');
    const line = slow.logs
      .map((text) => JSON.parse(text) as { msg?: string; searches_executed?: number })
      .filter((entry) => entry.msg === 'request')
      .at(-1);
    t.equal(line?.searches_executed, 0);
    t.equal(stuck.stop_reason, 'end_turn');
  },
);
