// What a batch's lines meet while they wait (issue #29): the 24-hour window, the key that made the batch revoked,
// and the upstream's priority scheduling. The batch worker runs on a clock the test moves.
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { startSim } from '../../sim/server.js';
import { newBatch } from '../../batch/new-batch.js';
import { batchDb } from '../../store/batch-schema.js';
import type { Store } from '../../store/store.js';
import { TestClock } from '../helpers/clock.js';
import { orgWithKey } from '../helpers/org-key.js';
import { startRecordingProxy } from '../helpers/recording-proxy.js';
import { rejection } from '../helpers/rejection.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const CHAIN = 'plugins:\n  - name: auth\n  - name: ratelimit\n  - name: meter\n';
const DAY_MS = 86_400_000;

const chatLine = (customId: string): string =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'qwen3-8b', messages: [{ role: 'user', content: `Say ${customId}` }], max_tokens: 8 },
  });

async function batchOf(client: OpenAI, count: number): Promise<OpenAI.Batch> {
  const lines = Array.from({ length: count }, (_, i) => chatLine(`line-${i}`));
  const file = await client.files.create({
    file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'batch.jsonl'),
    purpose: 'batch',
  });
  return client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
}

const ended = (stack: Stack, batchId: string): Promise<unknown> =>
  stack.logged((entry) => entry.msg === 'batch ended' && entry.batchId === batchId);

const errorLines = async (client: OpenAI, batch: OpenAI.Batch): Promise<Array<Record<string, unknown>>> =>
  (await (await client.files.content(batch.error_file_id!)).text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

t.test('a batch whose window runs out', async (t) => {
  const clock = new TestClock();
  // One line at a time, each answer a while in coming: the window closes with lines still queued.
  const stack = await startStack({
    yaml: `batch:\n  concurrency: 1\n  poll_ms: 20\n${CHAIN}`,
    sim: { ttftMs: 150 },
    env: await freshStoreEnvironment(),
    now: clock.now,
  });
  t.teardown(() => stack.close());
  const store: Store = await stack.store();
  const acme = await orgWithKey(store, 'acme', { credits: 10 });
  const client = new OpenAI({ apiKey: acme.key, baseURL: stack.baseURL, maxRetries: 0 });

  await t.test(
    'lines not run within the 24-hour window expire, billed nothing, and the batch ends expired',
    async (t) => {
      const batch = await batchOf(client, 6);
      clock.advance(DAY_MS + 1);
      await ended(stack, batch.id);
      const done = await client.batches.retrieve(batch.id);
      t.equal(done.status, 'expired');
      t.ok(done.expired_at !== null);
      const expired = (await errorLines(client, done)).filter(
        (line) => (line.error as { code?: string } | null)?.code === 'batch_expired',
      );
      t.ok(expired.length >= 5, `${expired.length} lines expired`);
      t.equal(done.request_counts?.completed, 6 - expired.length, 'the others ran');
      t.equal(done.request_counts?.failed, expired.length, 'expired lines count as failed');
      const rows = await batchDb(store.db).selectFrom('usage').select('id').where('batch_id', '=', batch.id).execute();
      t.equal(rows.length, 6 - expired.length, 'no ledger row for an expired line');
    },
  );

  await t.test('an ended batch, its results and its files are deleted retention_days after its end', async (t) => {
    const batch = await batchOf(client, 1);
    await ended(stack, batch.id);
    const done = await client.batches.retrieve(batch.id);
    clock.advance(31 * DAY_MS);
    await stack.logged(
      (entry) =>
        entry.msg === 'batch retention: ended batches and old files deleted' &&
        (entry.batchIds as string[]).includes(batch.id),
    );
    t.match(await rejection(client.batches.retrieve(batch.id)), { status: 404 });
    t.match(await rejection(client.files.content(done.output_file_id!)), { status: 404 });
    t.match(
      await rejection(client.files.retrieve(done.input_file_id)),
      { status: 404 },
      'the upload too, 30 days after it was made',
    );
    t.same(await store.batchLines.results(batch.id, 0, 10), [], 'its lines are gone');
  });

  await t.test('a key revoked after its batch was made fails the lines still to run with 401', async (t) => {
    const member = await orgWithKey(store, 'member-org', { credits: 10 });
    const memberClient = new OpenAI({ apiKey: member.key, baseURL: stack.baseURL, maxRetries: 0 });
    const batch = await batchOf(memberClient, 4);
    const [key] = await store.keys.list(member.id);
    await store.keys.revoke(key!.id);
    await ended(stack, batch.id);
    const done = await store.batches.get(member.id, 'openai', batch.id);
    t.equal(done?.status, 'completed');
    const lines = await store.batchLines.results(batch.id, 0, 10);
    const refused = lines.filter((line) => line.statusCode === 401);
    t.ok(refused.length >= 3, `${refused.length} lines refused after the revocation`);
    for (const line of refused) t.match(JSON.parse(line.result!), { body: { error: { code: 'invalid_api_key' } } });
  });
});

t.test(
  'with batch.upstream_priority, lines reach the upstream with that priority, live requests with none',
  async (t) => {
    const sim = await startSim({});
    const proxy = await startRecordingProxy(sim.url);
    const stack = await startStack({
      yaml: `batch:\n  upstream_priority: 7\n  poll_ms: 20\n${CHAIN}`,
      upstreamUrls: [`${proxy.url}/v1`],
      env: await freshStoreEnvironment(),
    });
    t.teardown(async () => {
      await stack.close();
      await proxy.close();
      await sim.close();
    });
    const acme = await orgWithKey(await stack.store(), 'acme', { credits: 10 });
    const client = new OpenAI({ apiKey: acme.key, baseURL: stack.baseURL, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'qwen3-8b',
      messages: [{ role: 'user', content: 'Say live' }],
      max_tokens: 8,
    });
    const batch = await batchOf(client, 2);
    await ended(stack, batch.id);
    const calls = proxy.exchanges().filter((exchange) => exchange.path.endsWith('/chat/completions'));
    const bodies = calls.map((call) => call.body as { priority?: number; messages: Array<{ content: string }> });
    const live = bodies.filter((body) => body.messages[0]!.content === 'Say live');
    const lines = bodies.filter((body) => body.messages[0]!.content.startsWith('Say line-'));
    t.equal(live.length, 1);
    t.equal(live[0]!.priority, undefined, 'a live request keeps the default priority');
    t.equal(lines.length, 2);
    for (const body of lines) t.equal(body.priority, 7, 'a line has the batch priority');
  },
);

t.test('a line that cannot be run five times ends errored, and its batch still ends', async (t) => {
  const stack = await startStack({
    yaml: `batch:\n  lease_ms: 100\n  poll_ms: 20\n${CHAIN}`,
    env: await freshStoreEnvironment(),
  });
  t.teardown(() => stack.close());
  const store = await stack.store();
  const acme = await orgWithKey(store, 'acme', { credits: 10 });
  const [key] = await store.keys.list(acme.id);
  // A batch whose input is not in the storage (lost from a shared mount, say): every attempt at its line fails.
  const batch = newBatch(
    {
      id: 'batch_lost_input',
      orgId: acme.id,
      keyId: key!.id,
      api: 'openai',
      endpoint: '/v1/chat/completions',
      inputFileId: 'file_gone',
      inputObject: 'files/nowhere/file_gone.jsonl',
      metadata: null,
    },
    Date.now(),
  );
  await store.batches.create(batch, [{ customId: 'lost', offset: 0, length: 10 }]);
  await ended(stack, batch.id);
  const [line] = await store.batchLines.results(batch.id, 0, 1);
  t.equal(line!.state, 'errored');
  t.match(JSON.parse(line!.result!), {
    status_code: 500,
    body: { error: { message: /could not run this line \(5 attempts\)/ } },
  });
  t.equal((await store.batches.get(acme.id, 'openai', batch.id))?.status, 'completed');
});
