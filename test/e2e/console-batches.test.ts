// The console's batches panel in a real headless Chromium: a batch run over the sim through the real `openai` SDK
// shows with its status, its request counts and the cost the ledger holds for it, and its Download link saves its
// results; a batch that has not ended shows no link.
import { readFile } from 'node:fs/promises';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { batchDb } from '../../store/batch-schema.js';
import { formatCredits } from '../../store/credits.js';
import { byTestId } from '../helpers/browser.js';
import { signedInPage } from '../helpers/console.js';
import { ACME_MEMBERS, consoleStackForFile } from '../kit/console-stack.js';
import { chainOf } from '../kit/stack-presets.js';
import { storedBatch } from '../kit/stored-batch.js';

const { smtp, stack, store, browser, consoleUrl } = await consoleStackForFile(t, {
  yaml: `batch:\n  concurrency: 1\n${chainOf('auth', 'ratelimit', 'meter')}`,
});
const acme = (await store.orgs.create('acme', ACME_MEMBERS)).id;
await store.orgs.addCredits(acme, 10_000_000);
const adaKey = await store.keys.create(acme, 'ada-batch', { who: 'ada@acme.example', address: null });

const chatLine = (customId: string, body: Record<string, unknown> = {}): string =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'qwen3-8b', messages: [{ role: 'user', content: `Say ${customId}` }], max_tokens: 16, ...body },
  });

// A batch of three lines, one of which the endpoint refuses, run to its end before the pages look.
const client = new OpenAI({ apiKey: adaKey.key, baseURL: stack.baseURL, maxRetries: 0 });
const file = await client.files.create({
  file: await toFile(
    Buffer.from(`${[chatLine('good'), chatLine('bad', { messages: 'not a list' }), chatLine('fine')].join('\n')}\n`),
    'batch.jsonl',
  ),
  purpose: 'batch',
});
const batch = await client.batches.create({
  input_file_id: file.id,
  endpoint: '/v1/chat/completions',
  completion_window: '24h',
});
await stack.logged((entry) => entry.msg === 'batch ended' && entry.batchId === batch.id);

const ledgerCost = async (batchId: string): Promise<number> => {
  const rows = await batchDb(store.db)
    .selectFrom('usage')
    .select('cost_micros')
    .where('batch_id', '=', batchId)
    .where('state', '=', 'settled')
    .execute();
  return rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
};

const signedIn = (email: string) => signedInPage(t, browser, { consoleUrl, smtp, email, expected: /status of 401/ });

t.test(
  'a member sees the batch with its status, its request counts and its cost in credits, as the ledger has it',
  async (t) => {
    const { page, problems } = await signedIn('bob@acme.example');
    const row = page.locator(`[data-testid="batch-row"][data-batch-id="${batch.id}"]`);
    await row.waitFor();
    t.equal(await row.locator('[data-testid="batch-status"]').textContent(), 'completed');
    t.equal(await row.locator('[data-testid="batch-counts"]').textContent(), '3 requests, 2 succeeded, 1 errored');
    const cost = await ledgerCost(batch.id);
    t.ok(cost > 0, 'the lines that ran were billed');
    t.equal(await row.locator('[data-testid="batch-cost"]').textContent(), `${formatCredits(cost)} credits`);
    t.equal(await byTestId(page, 'batch-empty').isHidden(), true, 'no "No batches yet."');
    t.same(problems, []);
  },
);

t.test("an ended batch's Download link saves its results, one line per request in input order", async (t) => {
  const { page, problems } = await signedIn('bob@acme.example');
  const link = page.locator(`[data-testid="batch-row"][data-batch-id="${batch.id}"] [data-testid="batch-download"]`);
  await link.waitFor();
  t.equal(await link.getAttribute('href'), `/console/v1/orgs/${acme}/batches/${batch.id}/results`);
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  t.equal(download.suggestedFilename(), `${batch.id}_results.jsonl`);
  const lines = (await readFile((await download.path())!, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { custom_id: string; response: { status_code: number } });
  t.same(
    lines.map((line) => [line.custom_id, line.response.status_code]),
    [
      ['good', 200],
      ['bad', 400],
      ['fine', 200],
    ],
  );
  t.same(problems, []);
});

t.test('a batch that has not ended shows its status and no Download link', async (t) => {
  const waiting = storedBatch('batch_console_page_waiting', acme, adaKey.record.id, { status: 'validating' });
  await store.batches.create(waiting, []);
  const { page, problems } = await signedIn('ada@acme.example');
  const row = page.locator(`[data-testid="batch-row"][data-batch-id="${waiting.id}"]`);
  await row.waitFor();
  t.equal(await row.locator('[data-testid="batch-status"]').textContent(), 'validating');
  t.equal(await row.locator('[data-testid="batch-download"]').count(), 0);
  t.same(problems, []);
});
