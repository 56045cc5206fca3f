// Server-side web search in the responses dialect (spec 2.6, 2.7; docs/wire.md), driven by the real `openai`
// package in both wire profiles, against the gateway with the search plugin (local provider, demo corpus)
// and the sim's search rule. Also: chat completions refuses every search tool (rule 7).
import OpenAI from 'openai';
import t from 'tap';
import { rejection } from '../helpers/rejection.js';
import { stackForFile } from '../kit/file-stack.js';
import { chainOf, SEARCH_LOCAL } from '../kit/stack-presets.js';
import { openaiClient, WIRE_PROFILES } from '../kit/openai-client.js';

const MODEL = 'qwen3-8b';

type SimMessage = { role: string; content: string | null };

const stack = await stackForFile(t, { yaml: chainOf(SEARCH_LOCAL) });

/** The results the model read in the last upstream call: the numbered lines of its last tool message. */
function resultLines(): string[] {
  const messages = (stack.sim.requests().at(-1)?.body as { messages: SimMessage[] }).messages;
  const tool = messages.filter((message) => message.role === 'tool').at(-1);
  return (tool?.content ?? '').split('\n').filter((line) => /^\[\d+\] /.test(line));
}

function resultUrls(): string[] {
  const messages = (stack.sim.requests().at(-1)?.body as { messages: SimMessage[] }).messages;
  const tool = messages.filter((message) => message.role === 'tool').at(-1);
  return [...(tool?.content ?? '').matchAll(/^URL: (.+)$/gm)].map((match) => match[1]!);
}

/** SDK additions (`output_text` on created responses, `parsed` on the helper's), left out of comparisons. */
const SDK_FIELDS = new Set(['output_text', 'output_parsed', 'parsed']);

const TIMES_AND_IDS = new Set(['id', 'created_at', 'created', 'completed_at']);

/** A response with what differs between two answers to one prompt (ids, timestamps, cache split) blanked out. */
function comparable(response: OpenAI.Responses.Response): unknown {
  const { usage, ...rest } = response;
  const summary = {
    total: usage?.total_tokens,
    output: usage?.output_tokens,
    searches: (usage as { web_search_requests?: number } | undefined)?.web_search_requests,
  };
  return JSON.parse(
    JSON.stringify({ ...rest, usage: summary }, (key, value: unknown) =>
      SDK_FIELDS.has(key) ? undefined : TIMES_AND_IDS.has(key) ? '…' : value,
    ),
  );
}

for (const wire of WIRE_PROFILES) {
  const client = (): OpenAI => openaiClient(stack, wire);

  t.test(
    `[${wire}] responses.create: web_search_call item first, then the message with url_citation annotations, and the count`,
    async (t) => {
      const response = await client().responses.create({
        model: MODEL,
        input: 'search: lisbon weather',
        tools: [{ type: 'web_search' }],
      });
      t.equal(response.status, 'completed');
      t.same(
        response.output.map((item) => item.type),
        ['web_search_call', 'message'],
      );
      t.match(response.output[0], {
        type: 'web_search_call',
        id: /^ws_/,
        status: 'completed',
        action: { type: 'search', query: 'lisbon weather' },
      });
      const text = 'According to Lisbon weather forecast [1]. According to Paris weather forecast [2].';
      t.equal(response.output_text, text);
      const message = response.output[1];
      const part = message?.type === 'message' ? message.content[0] : undefined;
      const annotations = part?.type === 'output_text' ? part.annotations : [];
      t.same(annotations, [
        {
          type: 'url_citation',
          start_index: 37,
          end_index: 40,
          url: 'https://weather.example/forecast/lisbon',
          title: 'Lisbon weather forecast',
        },
        {
          type: 'url_citation',
          start_index: 78,
          end_index: 81,
          url: 'https://weather.example/forecast/paris',
          title: 'Paris weather forecast',
        },
      ]);
      t.same(
        annotations.map(
          (annotation) =>
            annotation.type === 'url_citation' && text.slice(annotation.start_index, annotation.end_index),
        ),
        ['[1]', '[2]'],
        'each annotation spans its marker',
      );
      t.equal((response.usage as { web_search_requests?: number }).web_search_requests, 1);
      t.ok((response.usage?.input_tokens ?? 0) > 0 && (response.usage?.output_tokens ?? 0) > 0);
      if (wire === 'spec') t.match(response, { finish_reason: 'stop', output_text: text });
    },
  );

  t.test(
    `[${wire}] streamed: the web_search_call events, the annotation events, and the same final response`,
    async (t) => {
      const params = { model: MODEL, input: 'search: lisbon weather', tools: [{ type: 'web_search' as const }] };
      const stream = await client().responses.create({ ...params, stream: true });
      const types: string[] = [];
      const sequence: number[] = [];
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        sequence.push(event.sequence_number);
        if (event.type === 'response.completed') completed = event.response;
      }
      t.same(types.slice(0, 7), [
        'response.created',
        'response.output_item.added',
        'response.web_search_call.in_progress',
        'response.web_search_call.searching',
        'response.web_search_call.completed',
        'response.output_item.done',
        'response.output_item.added',
      ]);
      t.equal(types.filter((type) => type === 'response.output_text.annotation.added').length, 2);
      t.same(types.slice(-4), [
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      t.same(
        sequence,
        sequence.map((_, index) => index),
      );
      const body = await client().responses.create(params);
      t.same(comparable(completed!), comparable(body), 'response.completed carries the non-streamed response');
      const final = await client().responses.stream(params).finalResponse();
      t.same(comparable(final), comparable(body), 'the stream helper assembles the same response');
      t.equal(final.output_text, body.output_text);
    },
  );
}

t.test('search_context_size: low gives the model fewer results than high', async (t) => {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, maxRetries: 0 });
  const count = async (size: 'low' | 'medium' | 'high'): Promise<number> => {
    await client.responses.create({
      model: MODEL,
      input: 'search: serving models',
      tools: [{ type: 'web_search', search_context_size: size }],
    });
    return resultLines().length;
  };
  t.equal(await count('low'), 3);
  t.equal(await count('medium'), 5);
  t.equal(await count('high'), 7, 'every match of the demo corpus (up to 10)');
});

t.test('filters: allowed_domains and blocked_domains decide which results the model reads', async (t) => {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, maxRetries: 0 });
  const allowed = await client.responses.create({
    model: MODEL,
    input: 'search: lisbon weather',
    tools: [{ type: 'web_search', filters: { allowed_domains: ['weather.example'] } }],
  });
  t.same(resultUrls(), [
    'https://weather.example/forecast/lisbon',
    'https://weather.example/forecast/paris',
    'https://weather.example/forecast/tokyo',
  ]);
  t.match(allowed.output_text, /Lisbon weather forecast \[1\]/);
  await client.responses.create({
    model: MODEL,
    input: 'search: lisbon weather',
    tools: [
      {
        type: 'web_search',
        filters: { blocked_domains: ['weather.example'] },
      } as unknown as OpenAI.Responses.WebSearchTool,
    ],
  });
  t.same(resultUrls(), ['https://travel.example/guides/lisbon']);
});

t.test('follow-up input carrying the earlier web_search_call items is accepted (they are skipped)', async (t) => {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, maxRetries: 0 });
  const first = await client.responses.create({
    model: MODEL,
    input: 'search: lisbon weather',
    tools: [{ type: 'web_search' }],
  });
  const second = await client.responses.create({
    model: MODEL,
    tools: [{ type: 'web_search' }],
    input: [
      { role: 'user', content: 'search: lisbon weather' },
      ...(first.output as OpenAI.Responses.ResponseInputItem[]),
      { role: 'user', content: 'echo: thanks' },
    ],
  });
  t.equal(second.output_text, 'thanks');
  t.same(
    second.output.map((item) => item.type),
    ['message'],
  );
  t.equal((second.usage as { web_search_requests?: number }).web_search_requests, 0);
});

t.test(
  'chat completions refuses any search tool and the gateway-side search fields, with the search plugin in the chain (rule 7)',
  async (t) => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: stack.baseURL, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'search: lisbon weather' }];
    t.match(
      await rejection(
        client.chat.completions.create({
          model: MODEL,
          messages,
          tools: [{ type: 'web_search' } as unknown as OpenAI.Chat.ChatCompletionTool],
        }),
      ),
      { status: 400, param: 'tools[0].type', message: /not supported on \/v1\/chat\/completions/ },
    );
    t.match(await rejection(client.chat.completions.create({ model: MODEL, messages, web_search_options: {} })), {
      status: 400,
      param: 'web_search_options',
    });
    for (const field of ['web_search', 'web_search_replay']) {
      t.match(
        await rejection(
          client.chat.completions.create({
            model: MODEL,
            messages,
            [field]: { max_uses: 5 },
          } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming),
        ),
        { status: 400, param: field },
      );
    }
  },
);
