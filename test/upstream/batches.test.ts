// The batch APIs in front of a real llama-server (issue #29): the real `openai` and `@anthropic-ai/sdk` batch
// clients make a batch, the worker runs its lines through the server, and each line's answer is the tiny model's,
// billed at half the list price (the tier's prices: a micro-credit an input token, two an output token).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import t, { type Test } from 'tap';
import { batchDb } from '../../store/batch-schema.js';
import { SAYS } from '../../upstream-tier/tiny-qwen3-answers.js';
import { ledgerCheck, startLlamaStack, type LlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';

t.setTimeout(TIER_TIMEOUT_MS);

let llama: LlamaStack;
t.before(async () => {
  llama = await startLlamaStack(t, { yaml: 'batch:\n  poll_ms: 50' });
});

const ended = (batchId: string): Promise<unknown> =>
  llama.stack.logged((entry) => entry.msg === 'batch ended' && entry.batchId === batchId);

/** Each ledger row of the batch costs half its tokens' list price, rounded up once. */
async function billedAtHalfPrice(t: Test, batchId: string, lines: number): Promise<void> {
  const rows = await batchDb(llama.store.db).selectFrom('usage').selectAll().where('batch_id', '=', batchId).execute();
  t.equal(rows.length, lines, 'a ledger row per line');
  for (const row of rows) {
    const list = Number(row.input_tokens) + 2 * Number(row.output_tokens);
    t.equal(Number(row.cost_micros), Math.ceil(list / 2), `${row.id}: half of ${list} micro-credits`);
  }
}

t.test('an OpenAI batch of chat completions runs through llama-server at the batch price', async (t) => {
  const client = new OpenAI({ apiKey: llama.key, baseURL: `${llama.url}/v1`, maxRetries: 0 });
  const lines = ['a', 'b'].map((id) =>
    JSON.stringify({
      custom_id: id,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 32 },
    }),
  );
  const file = await client.files.create({
    file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'),
    purpose: 'batch',
  });
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
  });
  await ended(batch.id);
  const done = await client.batches.retrieve(batch.id);
  t.same(done.request_counts, { total: 2, completed: 2, failed: 0 });
  const output = (await (await client.files.content(done.output_file_id!)).text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { custom_id: string; response: { body: OpenAI.ChatCompletion } });
  t.same(
    output.map((line) => line.custom_id),
    ['a', 'b'],
  );
  for (const line of output) t.match(line.response.body.choices[0]!.message.content, SAYS.content);
  await billedAtHalfPrice(t, batch.id, 2);
});

t.test('an Anthropic message batch runs through llama-server at the batch price', async (t) => {
  const client = new Anthropic({ apiKey: llama.key, baseURL: llama.url, maxRetries: 0 });
  const batch = await client.messages.batches.create({
    requests: ['x', 'y'].map((id) => ({
      custom_id: id,
      params: { model: 'qwen3-8b', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello' }] },
    })),
  });
  await ended(batch.id);
  const results = [];
  for await (const result of await client.messages.batches.results(batch.id)) results.push(result);
  t.same(
    results.map((result) => [result.custom_id, result.result.type]),
    [
      ['x', 'succeeded'],
      ['y', 'succeeded'],
    ],
  );
  for (const result of results)
    if (result.result.type === 'succeeded') {
      const text = result.result.message.content.find((block) => block.type === 'text');
      t.match(text?.type === 'text' ? text.text : '', SAYS.content);
    }
  await billedAtHalfPrice(t, batch.id, 2);
  t.equal(ledgerCheck(llama.stack).code, 0, '`gateway ledger check` agrees');
});
