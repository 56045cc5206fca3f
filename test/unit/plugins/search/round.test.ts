// The search plugin's pieces: citation markers split across deltas, sealing, and one round's rewriting of the
// upstream chunks (text passed at once and split after cited markers, search calls held, usage cumulative).
import t from 'tap';
import type { CanonicalEvent } from '../../../../core/canonical.js';
import { MarkerScanner } from '../../../../plugins/search/markers.js';
import { Round } from '../../../../plugins/search/round.js';
import { Sealer } from '../../../../plugins/search/sealer.js';
import { SourceBook } from '../../../../plugins/search/sources.js';
import { addUsage } from '../../../../plugins/search/usage.js';
import { chatChunk } from '../../../kit/chunks.js';

t.test('markers split across deltas are found whole; a bracket that is no marker passes on', async (t) => {
  const scanner = new MarkerScanner();
  const pieces = [
    ...scanner.push('Sunny ['),
    ...scanner.push('1'),
    ...scanner.push('] and warm [2'),
    ...scanner.push(']. Array[x] ok [12'),
  ];
  t.same(
    pieces,
    [
      { text: 'Sunny ' },
      { text: '[1]', marker: { text: '[1]', number: 1 } },
      { text: ' and warm ' },
      { text: '[2]', marker: { text: '[2]', number: 2 } },
      { text: '. Array[x] ok ' },
    ],
    'text before a possible marker leaves at once; the marker leaves whole',
  );
  t.equal(scanner.flush(), '[12', 'an unfinished marker at the end is plain text');
  t.same(new MarkerScanner().push('[1][2]'), [
    { text: '[1]', marker: { text: '[1]', number: 1 } },
    { text: '[2]', marker: { text: '[2]', number: 2 } },
  ]);
});

t.test('sealed values open only unchanged, under the same secret, for the same purpose', async (t) => {
  const sealer = new Sealer(Buffer.alloc(32, 7));
  const sealed = sealer.seal('content', { u: 'https://a.example', c: 'page' });
  t.match(sealed, /^[\w-]+$/);
  t.same(sealer.open('content', sealed), { u: 'https://a.example', c: 'page' });
  t.equal(sealer.open('index', sealed), undefined, 'not for another purpose');
  t.equal(new Sealer(Buffer.alloc(32, 8)).open('content', sealed), undefined, 'not under another secret');
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[bytes.length - 1]! ^= 1;
  t.equal(sealer.open('content', bytes.toString('base64url')), undefined, 'not changed');
  t.equal(sealer.open('content', 'garbage'), undefined);
});

t.test(
  'a round: cited markers split the text with a citation after them; search calls and the finish are held',
  async (t) => {
    const book = new SourceBook(new Sealer(Buffer.alloc(32, 1)));
    book.add({ url: 'https://a.example', title: 'A', content: 'Alpha is first. More text.', pageAge: null });
    const round = new Round(
      {
        holdCalls: true,
        streamed: true,
        prior: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
        searches: () => 1,
      },
      book,
    );
    const out: CanonicalEvent[] = [
      ...round.take(chatChunk({ role: 'assistant', content: '' })),
      ...round.take(chatChunk({ content: 'Alpha [' })),
      ...round.take(
        chatChunk({ content: '1]. Beta [9].' }, {}, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }),
      ),
      ...round.take(
        chatChunk({
          tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'web_search', arguments: '' } }],
        }),
      ),
      ...round.take(
        chatChunk(
          { tool_calls: [{ index: 0, function: { arguments: '{"query":"x"}' } }] },
          { finish_reason: 'tool_calls' },
        ),
      ),
      ...round.take({
        ...chatChunk({}),
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      }),
      ...round.end(),
    ];
    const texts = out
      .map((event) => (event.type === 'chunk' ? (event.chunk.choices[0]?.delta.content ?? '') : `<${event.type}>`))
      .join('|');
    t.equal(
      texts,
      '|Alpha |[1]|<citation>|. Beta [9]|.|',
      'the marker whole in one chunk, the citation after it; [9] cites nothing',
    );
    const citation = out.find((event) => event.type === 'citation');
    t.match(citation, {
      type: 'citation',
      marker: '[1]',
      citation: { url: 'https://a.example', title: 'A', cited_text: 'Alpha is first. More text.' },
    });
    t.notOk(
      out.some(
        (event) =>
          event.type === 'chunk' && (event.chunk.choices[0]?.delta.tool_calls || event.chunk.choices[0]?.finish_reason),
      ),
      'no call and no finish passes',
    );
    t.notOk(
      out.some((event) => event.type === 'chunk' && event.chunk.choices.length === 0),
      'the usage-only chunk is kept for the total',
    );
    const usage = out.flatMap((event) => (event.type === 'chunk' && event.chunk.usage ? [event.chunk.usage] : []));
    t.same(
      usage,
      [{ prompt_tokens: 15, completion_tokens: 5, total_tokens: 20, web_search_requests: 1 }],
      'running usage includes the earlier rounds and the count',
    );
    t.same(round.searchCalls(), [{ index: 0, id: 'c1', name: 'web_search', arguments: '{"query":"x"}' }]);
    t.equal(round.text, 'Alpha [1]. Beta [9].');
    t.same(round.usage, { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
    t.match(round.finishEvents(), [{ type: 'chunk', chunk: { choices: [{ finish_reason: 'stop', delta: {} }] } }]);
  },
);

t.test("a round: the client's calls come at the end with tool_calls; without search nothing is held", async (t) => {
  const book = new SourceBook(new Sealer(Buffer.alloc(32, 1)));
  const held = new Round({ holdCalls: true, streamed: false, prior: undefined, searches: () => 0 }, book);
  held.take(
    chatChunk(
      {
        tool_calls: [
          { index: 0, id: 's', type: 'function', function: { name: 'web_search', arguments: '{}' } },
          { index: 1, id: 'w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { finish_reason: 'tool_calls' },
      { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    ),
  );
  t.same(
    held.clientCalls().map((call) => call.name),
    ['get_weather'],
  );
  t.match(held.finishEvents(), [
    {
      chunk: {
        choices: [
          {
            finish_reason: 'tool_calls',
            delta: {
              tool_calls: [{ index: 1, id: 'w', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
            },
          },
        ],
      },
    },
  ]);
  const open = new Round({ holdCalls: false, streamed: true, prior: undefined, searches: () => undefined }, book);
  const passed = open.take(
    chatChunk(
      { tool_calls: [{ index: 0, id: 'w', function: { name: 'get_weather', arguments: '{}' } }] },
      { finish_reason: 'tool_calls' },
    ),
  );
  t.match(passed, [{ chunk: { choices: [{ finish_reason: 'tool_calls', delta: { tool_calls: [{ id: 'w' }] } }] } }]);
  t.same(open.finishEvents(), []);
});

t.test('usage adds up field by field, cache reads and writes included', async (t) => {
  t.same(
    addUsage(
      { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, prompt_tokens_details: { cached_tokens: 4 } },
      {
        prompt_tokens: 20,
        completion_tokens: 2,
        total_tokens: 22,
        prompt_tokens_details: {
          cached_tokens: 16,
          cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 0 },
        },
      },
    ),
    {
      prompt_tokens: 30,
      completion_tokens: 3,
      total_tokens: 33,
      prompt_tokens_details: {
        cached_tokens: 20,
        cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 0 },
      },
    },
  );
  t.equal(addUsage(undefined, undefined), undefined);
});
