// The sim's search rule (sim/README.md, "Search rule"): `search: <query>` in the last user message makes the
// simulated model call the `web_search` function, one query per turn; once the searches are done, it answers
// citing the first two numbered results.
import t from 'tap';
import { complete, simFor } from './sim-client.js';

const search = {
  type: 'function',
  function: {
    name: 'web_search',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
};
const weather = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const call = (id: string, query: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'web_search', arguments: JSON.stringify({ query }) } }],
});
const results =
  '[1] Lisbon weather forecast\nURL: https://weather.example/forecast/lisbon\nSunny.\n\n[2] Paris weather forecast\nURL: https://weather.example/forecast/paris\nShowers.';

t.test('each search: query is one web_search call, in order, one per turn', async (t) => {
  const sim = await simFor(t);
  const user = { role: 'user', content: 'search: lisbon weather search: carbonara recipe' };
  const first = await complete(sim, { messages: [user], tools: [search] });
  t.same(
    first.choices[0]?.message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]),
    [['web_search', { query: 'lisbon weather' }]],
  );
  const second = await complete(sim, {
    messages: [user, call('a', 'lisbon weather'), { role: 'tool', tool_call_id: 'a', content: results }],
    tools: [search],
  });
  t.same(
    second.choices[0]?.message.tool_calls?.map((c) => JSON.parse(c.function.arguments)),
    [{ query: 'carbonara recipe' }],
  );
});

t.test(
  'after the last search, the answer cites the first two numbered results with words of their titles',
  async (t) => {
    const sim = await simFor(t);
    const messages = [
      { role: 'user', content: 'search: lisbon weather' },
      call('a', 'lisbon weather'),
      { role: 'tool', tool_call_id: 'a', content: results },
    ];
    const answer = await complete(sim, { messages, tools: [search] });
    t.equal(
      answer.choices[0]?.message.content,
      'According to Lisbon weather forecast [1]. According to Paris weather forecast [2].',
    );
    const failed = await complete(sim, {
      messages: [...messages.slice(0, 2), { role: 'tool', tool_call_id: 'a', content: 'Error: unavailable.' }],
      tools: [search],
    });
    t.equal(failed.choices[0]?.message.content, 'The search found nothing to cite.');
  },
);

t.test(
  'a client tool named in the same message is called beside the search; no search without the function or with tool_choice none',
  async (t) => {
    const sim = await simFor(t);
    const both = await complete(sim, {
      messages: [{ role: 'user', content: 'search: lisbon weather and get_weather city=Lisbon' }],
      tools: [search, weather],
    });
    t.same(
      both.choices[0]?.message.tool_calls?.map((c) => c.function.name),
      ['web_search', 'get_weather'],
    );
    const none = await complete(sim, {
      messages: [{ role: 'user', content: 'echo: search: nothing' }],
      tools: [search],
      tool_choice: 'none',
    });
    t.equal(none.choices[0]?.message.content, 'search: nothing');
    const without = await complete(sim, {
      messages: [{ role: 'user', content: 'echo: search: nothing' }],
      tools: [weather],
    });
    t.equal(without.choices[0]?.message.content, 'search: nothing');
  },
);

t.test("Claude Code's WebSearch wording, 'search for the query: <query>', is a query", async (t) => {
  const sim = await simFor(t);
  const user = { role: 'user', content: 'Perform a web search for the query: lisbon weather' };
  const body = await complete(sim, { messages: [user], tools: [search] });
  t.same(
    body.choices[0]?.message.tool_calls?.map((c) => JSON.parse(c.function.arguments)),
    [{ query: 'lisbon weather' }],
  );
});
