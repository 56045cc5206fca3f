// Search with the meter (spec 8.4): executed searches are billed at $10 per 1,000 on top of the tokens of every
// model call of the search loop; errored ones (here: beyond max_uses) are neither counted nor billed.
import t from 'tap';
import type { Store } from '../../store/store.js';
import { ledgerRow } from '../helpers/metered-answers.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { defaultPricer } from '../kit/prices.js';
import { readSse } from '../kit/sse-reader.js';

let stack: Stack;
let store: Store;
let key: string;
const pricer = defaultPricer();

t.before(async () => {
  stack = await startStack({
    yaml: 'plugins:\n  - name: auth\n  - name: meter\n  - name: search\n    options: { provider: local }\n',
  });
  store = await stack.store();
  await store.orgs.create('acme');
  await store.orgs.addCredits('acme', 100_000_000);
  key = (await store.keys.create('acme', 'tests')).key;
});
t.teardown(async () => {
  await stack.close();
});

const SEARCH = { type: 'web_search_20250305', name: 'web_search' };

async function post(path: string, body: unknown): Promise<{ id: string; text: string }> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  t.equal(response.status, 200);
  return { id: response.headers.get('x-request-id')!, text: await response.text() };
}

for (const stream of [false, true]) {
  t.test(
    `messages${stream ? ', streamed' : ''}: two executed searches and one refused are billed as two, with every round's tokens`,
    async (t) => {
      const { id, text } = await post('/v1/messages', {
        model: 'qwen3-8b',
        max_tokens: 300,
        stream,
        tools: [{ ...SEARCH, max_uses: 2 }],
        messages: [{ role: 'user', content: 'search: lisbon weather search: tokyo weather search: paris weather' }],
      });
      const row = await ledgerRow(store.db, id);
      t.equal(row?.searches, 2);
      t.equal(
        row?.cost_micros,
        pricer.cost({
          input: row!.input_tokens,
          output: row!.output_tokens,
          cacheRead: row!.cache_read_tokens,
          cacheWrite5m: row!.cache_write_tokens,
          cacheWrite1h: 0,
          searches: 2,
        }),
      );
      t.ok(row!.cost_micros >= 20_000, 'two searches are 0.02 credits');
      // The usage the client got is what was billed: the sum of the four model calls.
      const usage = stream
        ? (
            JSON.parse(
              readSse(text)
                .filter((frame) => frame.data.includes('"message_delta"'))
                .at(-1)!.data,
            ) as {
              usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number };
            }
          ).usage
        : (
            JSON.parse(text) as {
              usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number };
            }
          ).usage;
      t.equal(row?.output_tokens, usage.output_tokens);
      t.equal(row!.input_tokens + row!.cache_read_tokens, usage.input_tokens + usage.cache_read_input_tokens);
    },
  );
}

t.test('responses: one executed search is billed', async (t) => {
  const { id } = await post('/v1/responses', {
    model: 'qwen3-8b',
    input: 'search: carbonara recipe',
    tools: [{ type: 'web_search' }],
  });
  t.equal((await ledgerRow(store.db, id))?.searches, 1);
});
