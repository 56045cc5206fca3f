// OpenAI's Files and Batch APIs through the real `openai` SDK (issue #29): upload, create, poll, results,
// cancel, list, delete, each line run through the same exchange as a live request and billed at the batch
// price in the integer ledger; bad input refused with a 400 that names the line or the field.
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import type { Store } from '../../store/store.js';
import { batchDb } from '../../store/batch-schema.js';
import { Pricer } from '../../plugins/meter/price.js';
import { loadConfig } from '../../config/load.js';
import { orgWithKey } from '../helpers/org-key.js';
import { rejection } from '../helpers/rejection.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const CHAIN = 'plugins:\n  - name: auth\n  - name: ratelimit\n  - name: meter\n';
const pricing = loadConfig(undefined, {}).config.pricing;
const listPrice = new Pricer(pricing);
const batchPrice = new Pricer(pricing, 50);

let stack: Stack;
let store: Store;
let client: OpenAI;
let acmeId: string;

t.before(async () => {
  stack = await startStack({
    yaml: `batch:\n  concurrency: 1\n  max_file_bytes: 4096\n  max_lines: 20\n${CHAIN}`,
    env: await freshStoreEnvironment(),
  });
  store = await stack.store();
  const acme = await orgWithKey(store, 'acme', { credits: 100 });
  acmeId = acme.id;
  client = new OpenAI({ apiKey: acme.key, baseURL: stack.baseURL, maxRetries: 0 });
});
t.teardown(() => stack.close());

/** A batch input line for chat completions. */
const chatLine = (customId: string, body: Record<string, unknown> = {}): string =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'qwen3-8b', messages: [{ role: 'user', content: `Say ${customId}` }], max_tokens: 16, ...body },
  });

const upload = async (sdk: OpenAI, lines: readonly string[]): Promise<OpenAI.FileObject> =>
  sdk.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'batch.jsonl'), purpose: 'batch' });

/** Waits for the gateway's log line that says the batch ended (no polling, no sleep). */
const ended = (batchId: string): Promise<unknown> =>
  stack.logged((entry) => entry.msg === 'batch ended' && entry.batchId === batchId);

const jsonLines = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

t.test(
  'a batch of chat completions runs every line, and its output file has each answer in OpenAI line shape',
  async (t) => {
    const file = await upload(client, [chatLine('one'), chatLine('two'), chatLine('three')]);
    t.match(file, { object: 'file', purpose: 'batch', filename: 'batch.jsonl', status: 'processed' });
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'nightly' },
    });
    t.match(batch, {
      object: 'batch',
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'nightly' },
    });
    t.equal(batch.request_counts?.total, 3);
    await ended(batch.id);
    const done = await client.batches.retrieve(batch.id);
    t.equal(done.status, 'completed');
    t.same(done.request_counts, { total: 3, completed: 3, failed: 0 });
    t.ok(done.completed_at !== null && done.finalizing_at !== null, 'its times are set');
    t.equal(done.error_file_id, null, 'no error file: every line succeeded');
    const output = jsonLines(await (await client.files.content(done.output_file_id!)).text());
    t.same(
      output.map((line) => line.custom_id),
      ['one', 'two', 'three'],
      'one line per request, in input order',
    );
    for (const line of output) {
      t.match(line, {
        id: String,
        response: { status_code: 200, request_id: String, body: { object: 'chat.completion' } },
        error: null,
      });
      const body = (line.response as { body: OpenAI.ChatCompletion }).body;
      t.ok(body.choices[0]!.message.content, 'the answer has text');
    }
    const outputFile = await client.files.retrieve(done.output_file_id!);
    t.equal(outputFile.purpose, 'batch_output');
  },
);

t.test(
  'each line is its own ledger row, tied to its batch and billed at the batch price (half the list price)',
  async (t) => {
    const file = await upload(client, [chatLine('a'), chatLine('b')]);
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await ended(batch.id);
    const rows = await batchDb(store.db).selectFrom('usage').selectAll().where('batch_id', '=', batch.id).execute();
    t.equal(rows.length, 2, 'one row per line');
    for (const row of rows) {
      t.equal(row.state, 'settled');
      const usage = {
        input: Number(row.input_tokens),
        output: Number(row.output_tokens),
        cacheRead: Number(row.cache_read_tokens),
        cacheWrite5m: Number(row.cache_write_tokens),
        cacheWrite1h: 0,
        searches: Number(row.searches),
      };
      t.equal(Number(row.cost_micros), batchPrice.cost(usage), 'the batch price');
      t.ok(Number(row.cost_micros) <= Math.ceil(listPrice.cost(usage) / 2), 'half the list price at most');
      t.ok(Number(row.cost_micros) > 0, 'not free');
    }
  },
);

t.test('a line the endpoint refuses goes to the error file with its 400, and the other lines run', async (t) => {
  const file = await upload(client, [chatLine('good'), chatLine('bad', { messages: 'not a list' }), chatLine('fine')]);
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
  });
  await ended(batch.id);
  const done = await client.batches.retrieve(batch.id);
  t.equal(done.status, 'completed');
  t.same(done.request_counts, { total: 3, completed: 2, failed: 1 });
  const errors = jsonLines(await (await client.files.content(done.error_file_id!)).text());
  t.equal(errors.length, 1);
  t.match(errors[0], { custom_id: 'bad', response: { status_code: 400, body: { error: { param: 'messages' } } } });
  const output = jsonLines(await (await client.files.content(done.output_file_id!)).text());
  t.same(
    output.map((line) => line.custom_id),
    ['good', 'fine'],
  );
});

t.test(
  'a line the balance cannot cover at its maximum cost fails with the billing error, and the balance never goes below zero',
  async (t) => {
    const same = { messages: [{ role: 'user', content: 'Say hello' }] };
    // A line's hold (its input estimate and max_tokens at the batch price), read from a line like the ones below.
    const probe = await upload(client, [chatLine('probe', same)]);
    const probed = await client.batches.create({
      input_file_id: probe.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await ended(probed.id);
    const row = await batchDb(store.db)
      .selectFrom('usage')
      .select('hold_micros')
      .where('batch_id', '=', probed.id)
      .executeTakeFirstOrThrow();
    const hold = Number(row.hold_micros);
    const poor = await orgWithKey(store, 'poor');
    await store.orgs.addCredits(poor.id, hold);
    const sdk = new OpenAI({ apiKey: poor.key, baseURL: stack.baseURL, maxRetries: 0 });
    // The first line's hold fits the balance whole; once it is settled, what is left does not cover another.
    const file = await upload(sdk, [chatLine('p1', same), chatLine('p2', same), chatLine('p3', same)]);
    const batch = await sdk.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await ended(batch.id);
    const done = await sdk.batches.retrieve(batch.id);
    t.equal(done.request_counts?.completed, 1, 'the line the balance covered ran');
    t.equal(done.request_counts?.failed, 2);
    for (const line of jsonLines(await (await sdk.files.content(done.error_file_id!)).text()))
      t.match(line, { response: { status_code: 402, body: { error: { code: 'insufficient_credits' } } } });
    const org = await store.orgs.get(poor.id);
    t.ok(org.balanceMicros >= 0, `the balance is ${org.balanceMicros}, not below zero`);
  },
);

t.test('files and batches belong to their organization: another organization gets 404', async (t) => {
  const other = await orgWithKey(store, 'other', { credits: 1 });
  const stranger = new OpenAI({ apiKey: other.key, baseURL: stack.baseURL, maxRetries: 0 });
  const file = await upload(client, [chatLine('mine')]);
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
  });
  t.match(await rejection(stranger.files.retrieve(file.id)), { status: 404 });
  t.match(await rejection(stranger.files.content(file.id)), { status: 404 });
  t.match(await rejection(stranger.files.delete(file.id)), { status: 404 });
  t.match(await rejection(stranger.batches.retrieve(batch.id)), { status: 404 });
  t.match(await rejection(stranger.batches.cancel(batch.id)), { status: 404 });
  t.match(
    await rejection(
      stranger.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ),
    { status: 400, param: 'input_file_id' },
  );
  t.same((await stranger.batches.list()).data, [], 'its list is its own');
  t.same((await stranger.files.list()).data, []);
  await ended(batch.id);
});

t.test('a malformed JSONL line is refused at upload with a 400 that names the line', async (t) => {
  t.match(await rejection(upload(client, [chatLine('x'), '{not json'])), {
    status: 400,
    message: /line 2 of the file is not valid JSON/,
  });
  t.match(
    await rejection(
      upload(client, [JSON.stringify({ custom_id: 'y', method: 'GET', url: '/v1/chat/completions', body: {} })]),
    ),
    {
      status: 400,
      message: /line 1 of the file: method must be 'POST'/,
    },
  );
  t.match(await rejection(upload(client, [chatLine('same'), chatLine('same')])), {
    status: 400,
    message: /line 2.*custom_id must be unique/,
  });
});

t.test('a line that names a model the gateway does not serve is refused with a 400', async (t) => {
  t.match(await rejection(upload(client, [chatLine('m', { model: 'gpt-9' })])), {
    status: 400,
    message: /line 1 of the file: body.model must name a model this gateway serves/,
  });
});

t.test('an endpoint batches do not run is refused with a 400 naming endpoint', async (t) => {
  const file = await upload(client, [chatLine('e')]);
  t.match(
    await rejection(
      client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' }),
    ),
    { status: 400, param: 'endpoint' },
  );
  t.match(
    await rejection(
      client.batches.create({ input_file_id: file.id, endpoint: '/v1/responses', completion_window: '24h' }),
    ),
    { status: 400, message: /line 1 of the file: url must be the batch's endpoint/ },
  );
});

t.test('a file over the size or line limit is refused with a 400, and nothing of it is kept', async (t) => {
  const before = (await client.files.list()).data.length;
  const long = Array.from({ length: 60 }, (_, i) => chatLine(`line-${i}`));
  t.match(await rejection(upload(client, long)), { status: 400, message: /larger than 4096 bytes|more than 20 lines/ });
  const many = Array.from({ length: 21 }, (_, i) =>
    JSON.stringify({ custom_id: `${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'qwen3-8b' } }),
  );
  t.match(await rejection(upload(client, many)), { status: 400, message: /more than 20 lines/ });
  t.equal((await client.files.list()).data.length, before, 'no file was kept');
});

t.test('files list newest first and page with after; a deleted file is gone', async (t) => {
  const uploaded = [await upload(client, [chatLine('l1')]), await upload(client, [chatLine('l2')])];
  // Newest first: by the time of upload, to the millisecond, then by id (two uploads may share a millisecond).
  const records = await Promise.all(uploaded.map(async (file) => (await store.batchFiles.get(acmeId, file.id))!));
  const [newer, older] = records.sort((a, b) => b.createdAt - a.createdAt || (b.id > a.id ? 1 : -1));
  const page = await client.files.list({ limit: 1 });
  t.equal(page.data[0]!.id, newer!.id, 'newest first');
  t.ok(page.has_more);
  const next = await client.files.list({ limit: 1, after: newer!.id });
  t.equal(next.data[0]!.id, older!.id);
  t.same(await client.files.delete(older!.id), { id: older!.id, object: 'file', deleted: true });
  t.match(await rejection(client.files.retrieve(older!.id)), { status: 404 });
});

t.test("a list cursor that names none of the caller's files or batches is a 400 naming it", async (t) => {
  t.match(await rejection(client.files.list({ after: 'file_none' })), { status: 400, param: 'after' });
  t.match(await rejection(client.batches.list({ after: 'batch_none' })), { status: 400, param: 'after' });
});

t.test(
  'cancel stops the batch: the lines not started end cancelled in the error file, billed nothing; the running one ends',
  async (t) => {
    const lines = Array.from({ length: 12 }, (_, i) => chatLine(`c${i}`));
    const file = await upload(client, lines);
    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const cancelling = await client.batches.cancel(batch.id);
    t.ok(['cancelling', 'cancelled'].includes(cancelling.status), cancelling.status);
    await ended(batch.id);
    const done = await client.batches.retrieve(batch.id);
    t.equal(done.status, 'cancelled');
    t.ok(done.cancelled_at !== null && done.cancelling_at !== null);
    const errors = jsonLines(await (await client.files.content(done.error_file_id!)).text());
    const cancelled = errors.filter((line) => (line.error as { code?: string } | null)?.code === 'batch_cancelled');
    t.ok(cancelled.length >= lines.length - 2, `${cancelled.length} lines cancelled before they ran`);
    const rows = await batchDb(store.db).selectFrom('usage').select('id').where('batch_id', '=', batch.id).execute();
    t.equal(rows.length, lines.length - cancelled.length, 'a ledger row for each line that ran, none for the others');
    t.equal(done.request_counts?.completed, rows.length, 'the lines that ran have their answers');
  },
);
