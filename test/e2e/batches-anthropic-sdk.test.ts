// Anthropic's Message Batches through the real `@anthropic-ai/sdk` (issue #29): create, retrieve, list, cancel,
// delete and results, each request run as a POST /v1/messages through the same exchange as a live request and
// billed at the batch price in the integer ledger; bad input refused with a 400 that names the field. A gate
// between the gateway and the sim holds the requests while a test acts on a batch whose request is running.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import type { Store } from '../../store/store.js';
import { batchDb } from '../../store/batch-schema.js';
import { Pricer } from '../../plugins/meter/price.js';
import { loadConfig } from '../../config/load.js';
import { TestClock } from '../helpers/clock.js';
import { orgWithKey } from '../helpers/org-key.js';
import { rejection } from '../helpers/rejection.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startUpstreamGate, type UpstreamGate } from '../helpers/upstream-gate.js';
import { startSim, type RunningSim } from '../../sim/server.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';

const CHAIN = 'plugins:\n  - name: auth\n  - name: ratelimit\n  - name: meter\n';
const pricing = loadConfig(undefined, {}).config.pricing;
const listPrice = new Pricer(pricing);
const batchPrice = new Pricer(pricing, 50);
const DAY_MS = 86_400_000;

type BatchRequest = Anthropic.Messages.BatchCreateParams.Request;
type BatchResult = Anthropic.Messages.MessageBatchIndividualResponse;

let stack: Stack;
let store: Store;
let client: Anthropic;
let gate: UpstreamGate;
let sim: RunningSim;
const clock = new TestClock();

t.before(async () => {
  sim = await startSim();
  gate = await startUpstreamGate(sim.url, { shut: false });
  stack = await startStack({
    yaml: `batch:\n  concurrency: 1\n  max_lines: 5\n${CHAIN}`,
    env: await freshStoreEnvironment(),
    upstreamUrls: [`${gate.url}/v1`],
    now: clock.now,
  });
  store = await stack.store();
  client = await sdkFor('acme', 100);
});
t.teardown(async () => {
  await stack.close();
  await gate.close();
  await sim.close();
});

/** The SDK as a new organization with `credits`. */
async function sdkFor(name: string, credits: number): Promise<Anthropic> {
  const org = await orgWithKey(store, name, { credits });
  return new Anthropic({ apiKey: org.key, baseURL: stack.gateway.url, maxRetries: 0 });
}

/** A request of a batch; `params` are laid over a short valid message request. */
const ask = (customId: string, params: Record<string, unknown> = {}): BatchRequest => ({
  custom_id: customId,
  params: {
    model: 'qwen3-8b',
    max_tokens: 16,
    messages: [{ role: 'user', content: `Say ${customId}` }],
    ...params,
  } as BatchRequest['params'],
});

/** Waits for the gateway's log line that says the batch ended (no polling, no sleep). */
const ended = (batchId: string): Promise<unknown> =>
  stack.logged((entry) => entry.msg === 'batch ended' && entry.batchId === batchId);

async function resultsOf(sdk: Anthropic, batchId: string): Promise<BatchResult[]> {
  const results: BatchResult[] = [];
  for await (const result of await sdk.messages.batches.results(batchId)) results.push(result);
  return results;
}

const ledgerRows = (batchId: string) =>
  batchDb(store.db).selectFrom('usage').selectAll().where('batch_id', '=', batchId).execute();

t.test(
  'a batch runs every request: in_progress, then ended with one succeeded Message per custom_id, in request order',
  async (t) => {
    gate.shut();
    const createdAt = clock.now();
    const batch = await client.messages.batches.create({ requests: [ask('one'), ask('two'), ask('three')] });
    t.same(batch, {
      id: batch.id,
      type: 'message_batch',
      processing_status: 'in_progress',
      request_counts: { processing: 3, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
      ended_at: null,
      created_at: new Date(createdAt).toISOString(),
      expires_at: new Date(createdAt + DAY_MS).toISOString(),
      archived_at: null,
      cancel_initiated_at: null,
      results_url: null,
    });
    await gate.held(1);
    const running = await client.messages.batches.retrieve(batch.id);
    t.equal(running.processing_status, 'in_progress');
    t.equal(running.results_url, null, 'no results until the batch has ended');
    t.match(await rejection(client.messages.batches.results(batch.id)), { message: /No batch `results_url`/ });
    clock.advance(5_000);
    gate.open();
    await ended(batch.id);
    const done = await client.messages.batches.retrieve(batch.id);
    t.equal(done.processing_status, 'ended');
    t.same(done.request_counts, { processing: 0, succeeded: 3, errored: 0, canceled: 0, expired: 0 });
    t.equal(done.ended_at, new Date(createdAt + 5_000).toISOString());
    t.equal(done.created_at, batch.created_at);
    t.equal(done.results_url, `${stack.gateway.url}/v1/messages/batches/${batch.id}/results`);
    const results = await resultsOf(client, batch.id);
    t.same(
      results.map((result) => result.custom_id),
      ['one', 'two', 'three'],
      'one result per request, in request order',
    );
    for (const { result } of results) {
      t.equal(result.type, 'succeeded');
      if (result.type !== 'succeeded') continue;
      t.match(result.message, { type: 'message', role: 'assistant', model: 'qwen3-8b' });
      const [block] = result.message.content;
      t.ok(block?.type === 'text' && block.text.length > 0, 'the answer has text');
    }
  },
);

t.test(
  'a request the messages endpoint refuses is an errored result with its Anthropic error; the others succeed',
  async (t) => {
    const batch = await client.messages.batches.create({
      requests: [
        ask('good'),
        ask('not-a-list', { messages: 'not a list' }),
        ask('no-max', { max_tokens: undefined }),
        ask('fine'),
      ],
    });
    await ended(batch.id);
    const done = await client.messages.batches.retrieve(batch.id);
    t.same(done.request_counts, { processing: 0, succeeded: 2, errored: 2, canceled: 0, expired: 0 });
    const results = await resultsOf(client, batch.id);
    t.same(
      results.map((result) => [result.custom_id, result.result.type]),
      [
        ['good', 'succeeded'],
        ['not-a-list', 'errored'],
        ['no-max', 'errored'],
        ['fine', 'succeeded'],
      ],
    );
    for (const { result } of results.filter((each) => each.result.type === 'errored'))
      t.match(result, {
        type: 'errored',
        error: { type: 'error', error: { type: 'invalid_request_error', message: String }, request_id: String },
      });
    t.match(results[1]!.result, { error: { error: { message: /messages/ } } }, 'the error names the field');
    t.match(results[2]!.result, { error: { error: { message: /max_tokens/ } } }, 'the error names the field');
  },
);

t.test(
  'each request is its own ledger row, tied to its batch and billed at the batch price (half the list price)',
  async (t) => {
    const batch = await client.messages.batches.create({ requests: [ask('a'), ask('b')] });
    await ended(batch.id);
    const rows = await ledgerRows(batch.id);
    t.equal(rows.length, 2, 'one row per request');
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

t.test(
  'cancel: the batch is canceling while its running request ends; the requests not started end canceled, billed nothing',
  async (t) => {
    gate.shut();
    const batch = await client.messages.batches.create({ requests: [ask('c0'), ask('c1'), ask('c2'), ask('c3')] });
    await gate.held(1);
    clock.advance(1_000);
    const canceling = await client.messages.batches.cancel(batch.id);
    t.equal(canceling.processing_status, 'canceling');
    t.equal(canceling.cancel_initiated_at, new Date(clock.now()).toISOString());
    t.same(canceling.request_counts, { processing: 1, succeeded: 0, errored: 0, canceled: 3, expired: 0 });
    t.equal(canceling.results_url, null);
    gate.open();
    await ended(batch.id);
    const done = await client.messages.batches.retrieve(batch.id);
    t.equal(done.processing_status, 'ended');
    t.same(done.request_counts, { processing: 0, succeeded: 1, errored: 0, canceled: 3, expired: 0 });
    t.same(
      (await resultsOf(client, batch.id)).map((result) => [result.custom_id, result.result.type]),
      [
        ['c0', 'succeeded'],
        ['c1', 'canceled'],
        ['c2', 'canceled'],
        ['c3', 'canceled'],
      ],
    );
    t.equal((await ledgerRows(batch.id)).length, 1, 'a ledger row for the request that ran, none for the others');
  },
);

t.test('canceling a batch that has ended changes nothing: it is answered as it is', async (t) => {
  const batch = await client.messages.batches.create({ requests: [ask('late')] });
  await ended(batch.id);
  const done = await client.messages.batches.retrieve(batch.id);
  t.same(await client.messages.batches.cancel(batch.id), done);
  t.equal(done.cancel_initiated_at, null);
});

t.test('a request that asks for a stream is answered whole: its result is a Message', async (t) => {
  const batch = await client.messages.batches.create({ requests: [ask('streamed', { stream: true })] });
  await ended(batch.id);
  const [only] = await resultsOf(client, batch.id);
  t.match(only, { custom_id: 'streamed', result: { type: 'succeeded', message: { type: 'message' } } });
});

t.test('delete is refused with a 400 while the batch is processing; once it has ended, it is deleted', async (t) => {
  gate.shut();
  const batch = await client.messages.batches.create({ requests: [ask('d')] });
  await gate.held(1);
  t.match(await rejection(client.messages.batches.delete(batch.id)), {
    status: 400,
    error: { type: 'error', error: { type: 'invalid_request_error', message: /still processing/ } },
  });
  gate.open();
  await ended(batch.id);
  t.same(await client.messages.batches.delete(batch.id), { id: batch.id, type: 'message_batch_deleted' });
  t.match(await rejection(client.messages.batches.retrieve(batch.id)), {
    status: 404,
    error: { error: { type: 'not_found_error' } },
  });
});

t.test('batches list newest first and page with after_id', async (t) => {
  const sdk = await sdkFor('lister', 10);
  const made: string[] = [];
  for (const name of ['first', 'second', 'third']) {
    clock.advance(1_000);
    const batch = await sdk.messages.batches.create({ requests: [ask(name)] });
    made.push(batch.id);
    await ended(batch.id);
  }
  const [first, second, third] = made;
  const page = await sdk.messages.batches.list({ limit: 2 });
  t.same(
    page.data.map((batch) => batch.id),
    [third, second],
    'newest first',
  );
  t.equal(page.has_more, true);
  t.equal(page.last_id, second);
  const next = await sdk.messages.batches.list({ limit: 2, after_id: second! });
  t.same(
    next.data.map((batch) => batch.id),
    [first],
  );
  t.equal(next.has_more, false);
  const all: string[] = [];
  for await (const batch of sdk.messages.batches.list({ limit: 1 })) all.push(batch.id);
  t.same(all, [third, second, first], "the SDK's auto-pagination follows after_id to the end");
});

t.test('batches belong to their organization: another one does not list them and gets 404 for them', async (t) => {
  const stranger = await sdkFor('stranger', 1);
  const batch = await client.messages.batches.create({ requests: [ask('mine')] });
  await ended(batch.id);
  t.same((await stranger.messages.batches.list()).data, [], 'its list is its own');
  const notFound = { status: 404, error: { type: 'error', error: { type: 'not_found_error' } } };
  t.match(await rejection(stranger.messages.batches.retrieve(batch.id)), notFound);
  t.match(await rejection(stranger.messages.batches.cancel(batch.id)), notFound);
  t.match(await rejection(stranger.messages.batches.results(batch.id)), notFound);
  t.match(await rejection(stranger.messages.batches.delete(batch.id)), notFound);
  t.equal((await client.messages.batches.retrieve(batch.id)).id, batch.id, 'its own organization still has it');
});

t.test('bad input is refused with a 400 that names the field, and no batch is made', async (t) => {
  const sdk = await sdkFor('careless', 1);
  const invalid = (message: RegExp) => ({
    status: 400,
    error: { type: 'error', error: { type: 'invalid_request_error', message } },
  });
  t.match(
    await rejection(sdk.messages.batches.create({ requests: [ask('ok'), ask('has space')] })),
    invalid(/requests\[1\]\.custom_id must be 1 to 64 letters, digits/),
  );
  t.match(
    await rejection(sdk.messages.batches.create({ requests: [ask('x'.repeat(65))] })),
    invalid(/requests\[0\]\.custom_id/),
  );
  t.match(
    await rejection(sdk.messages.batches.create({ requests: [ask('same'), ask('same')] })),
    invalid(/requests\[1\]\.custom_id must be unique/),
  );
  t.match(
    await rejection(sdk.messages.batches.create({ requests: [ask('m', { model: 'claude-9' })] })),
    invalid(/requests\[0\]\.params\.model: this gateway serves no model 'claude-9'/),
  );
  t.match(await rejection(sdk.messages.batches.create({ requests: [] })), invalid(/requests must be an array/));
  t.match(
    await rejection(sdk.messages.batches.create({ requests: [{ custom_id: 'no-params' } as BatchRequest] })),
    invalid(/requests\[0\]\.params must be an object/),
  );
  t.match(await rejection(sdk.messages.batches.list({ limit: 0 })), invalid(/limit must be an integer from 1 to 1000/));
  const notJson = await fetch(`${stack.gateway.url}/v1/messages/batches`, {
    method: 'POST',
    headers: { 'x-api-key': sdk.apiKey!, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: '{"requests": [',
  });
  t.equal(notJson.status, 400, 'a body that is not JSON');
  t.match(await notJson.json(), { type: 'error', error: { type: 'invalid_request_error' } });
  t.match(
    await rejection(sdk.messages.batches.create({ requests: ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ask(id)) })),
    invalid(/requests must be an array of 1 to 5 requests/),
  );
  t.same((await sdk.messages.batches.list()).data, [], 'no batch was made');
});

t.test('an after_id that names no batch of the caller is a 400, not the list from the newest again', async (t) => {
  const sdk = await sdkFor('pager', 1);
  const batch = await sdk.messages.batches.create({ requests: [ask('p')] });
  await ended(batch.id);
  await sdk.messages.batches.delete(batch.id);
  const invalid = { status: 400, error: { error: { type: 'invalid_request_error', message: /after_id/ } } };
  t.match(await rejection(sdk.messages.batches.list({ after_id: batch.id })), invalid, 'a deleted batch');
  const mine = await client.messages.batches.list({ limit: 1 });
  t.match(await rejection(sdk.messages.batches.list({ after_id: mine.data[0]!.id })), invalid, "another's batch");
});

t.test(
  'requests not started within the 24 hours end expired, billed nothing; the one running ends and the batch ends',
  async (t) => {
    gate.shut();
    const batch = await client.messages.batches.create({ requests: [ask('e0'), ask('e1'), ask('e2')] });
    await gate.held(1);
    clock.advance(DAY_MS);
    gate.open();
    await ended(batch.id);
    const done = await client.messages.batches.retrieve(batch.id);
    t.equal(done.processing_status, 'ended');
    t.same(done.request_counts, { processing: 0, succeeded: 1, errored: 0, canceled: 0, expired: 2 });
    t.same(
      (await resultsOf(client, batch.id)).map((result) => [result.custom_id, result.result.type]),
      [
        ['e0', 'succeeded'],
        ['e1', 'expired'],
        ['e2', 'expired'],
      ],
    );
    t.equal((await ledgerRows(batch.id)).length, 1, 'a ledger row for the request that ran only');
  },
);
