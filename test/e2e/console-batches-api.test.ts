// The member API's batches (docs/console.md): an organization's batches of both batch APIs, run over the sim
// through the real SDKs, listed newest first with their status, request counts, cost (what the ledger holds for
// their lines) and key; an ended batch's results downloaded as JSONL in its API's line shape; another
// organization's batches a 404.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import t from 'tap';
import { batchDb } from '../../store/batch-schema.js';
import { formatCredits } from '../../store/credits.js';
import type { Store } from '../../store/store.js';
import { signInByEmail, type ConsoleMember } from '../helpers/console-member.js';
import { startSmtp, type RunningSmtp } from '../helpers/smtp.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { chainOf } from '../kit/stack-presets.js';
import { storedBatch } from '../kit/stored-batch.js';

interface BatchBody {
  id: string;
  api: string;
  endpoint: string;
  status: string;
  ended: boolean;
  created_at: string;
  ended_at: string | null;
  request_counts: Record<string, number>;
  cost: string;
  cost_micros: number;
  key: { id: string; name: string | null; last4: string | null };
}
interface BatchList {
  batches: BatchBody[];
  has_more: boolean;
  last_id: string | null;
}

let smtp: RunningSmtp;
let stack: Stack;
let store: Store;
let acme: string;
let other: string;
let bob: ConsoleMember;
let carol: ConsoleMember;
/** Acme's batches, made by Ada's key: an OpenAI one with a line the endpoint refuses, then an Anthropic one. */
let openAiBatch: OpenAI.Batch;
let anthropicBatch: Anthropic.Messages.MessageBatch;
let adaKey: { id: string; name: string; last4: string };
/** Ada's key itself, to read the batches through their APIs. */
let adaSecret: string;
let otherBatch: string;

const ended = (batchId: string): Promise<unknown> =>
  stack.logged((entry) => entry.msg === 'batch ended' && entry.batchId === batchId);

const chatLine = (customId: string, body: Record<string, unknown> = {}): string =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'qwen3-8b', messages: [{ role: 'user', content: `Say ${customId}` }], max_tokens: 16, ...body },
  });

async function openAiBatchOf(key: string, lines: readonly string[]): Promise<OpenAI.Batch> {
  const client = new OpenAI({ apiKey: key, baseURL: stack.baseURL, maxRetries: 0 });
  const file = await client.files.create({
    file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'batch.jsonl'),
    purpose: 'batch',
  });
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
  });
  await ended(batch.id);
  return client.batches.retrieve(batch.id);
}

t.before(async () => {
  smtp = await startSmtp();
  stack = await startStack({
    yaml: `console:\n  port: 0\nbatch:\n  concurrency: 1\n${chainOf('auth', 'ratelimit', 'meter')}`,
    env: { GATEWAY_SMTP_URL: smtp.url, ...(await freshStoreEnvironment()) },
  });
  store = await stack.store();
  acme = (
    await store.orgs.create('acme', [
      { email: 'ada@acme.test', role: 'admin' },
      { email: 'bob@acme.test', role: 'member' },
    ])
  ).id;
  await store.orgs.addCredits(acme, 10_000_000);
  other = (await store.orgs.create('other', [{ email: 'carol@other.test', role: 'admin' }])).id;
  await store.orgs.addCredits(other, 10_000_000);
  const ada = await store.keys.create(acme, 'ada-batch', { who: 'ada@acme.test', address: null });
  adaKey = { id: ada.record.id, name: ada.record.name, last4: ada.record.last4 };
  adaSecret = ada.key;
  const carolKey = await store.keys.create(other, 'carol-batch', { who: 'carol@other.test', address: null });

  openAiBatch = await openAiBatchOf(ada.key, [
    chatLine('good'),
    chatLine('bad', { messages: 'not a list' }),
    chatLine('fine'),
  ]);
  const anthropic = new Anthropic({ apiKey: ada.key, baseURL: stack.gateway.url, maxRetries: 0 });
  const made = await anthropic.messages.batches.create({
    requests: [
      {
        custom_id: 'hello',
        params: { model: 'qwen3-8b', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] },
      },
      {
        custom_id: 'no-max',
        params: { model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hi' }] },
      } as Anthropic.Messages.BatchCreateParams.Request,
    ],
  });
  await ended(made.id);
  anthropicBatch = await anthropic.messages.batches.retrieve(made.id);
  otherBatch = (await openAiBatchOf(carolKey.key, [chatLine('theirs')])).id;

  bob = await signInByEmail(stack.gateway.consoleUrl!, smtp, 'bob@acme.test');
  carol = await signInByEmail(stack.gateway.consoleUrl!, smtp, 'carol@other.test');
});
t.teardown(async () => {
  await stack?.close();
  await smtp?.close();
});

/** What the ledger holds for the batch's lines: their settled rows' cost, in micro-credits. */
async function ledgerCost(batchId: string): Promise<number> {
  const rows = await batchDb(store.db)
    .selectFrom('usage')
    .select(['cost_micros', 'state'])
    .where('batch_id', '=', batchId)
    .execute();
  return rows.filter((row) => row.state === 'settled').reduce((sum, row) => sum + Number(row.cost_micros), 0);
}

const jsonLines = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A download's answer as text, with its headers. */
async function download(
  member: ConsoleMember,
  path: string,
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${stack.gateway.consoleUrl}${path}`, { headers: { cookie: member.cookie } });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

t.test("the organization's answer says the gateway runs batches", async (t) => {
  const org = await bob.call<{ batches: boolean }>('GET', `/console/v1/orgs/${acme}`);
  t.equal(org.body.batches, true);
});

t.test(
  "a member lists the organization's batches of both APIs, newest first, with status, counts and key",
  async (t) => {
    const list = await bob.call<BatchList>('GET', `/console/v1/orgs/${acme}/batches`);
    t.equal(list.status, 200);
    t.same(
      list.body.batches.map((batch) => [batch.id, batch.api, batch.endpoint, batch.status, batch.ended]),
      [
        [anthropicBatch.id, 'anthropic', '/v1/messages', 'completed', true],
        [openAiBatch.id, 'openai', '/v1/chat/completions', 'completed', true],
      ],
    );
    t.equal(list.body.has_more, false);
    const [anthropic, openai] = list.body.batches;
    t.same(openai!.request_counts, {
      total: 3,
      queued: 0,
      running: 0,
      succeeded: 2,
      errored: 1,
      canceled: 0,
      expired: 0,
    });
    t.same(anthropic!.request_counts, {
      total: 2,
      queued: 0,
      running: 0,
      succeeded: 1,
      errored: 1,
      canceled: 0,
      expired: 0,
    });
    t.equal(Math.floor(Date.parse(openai!.created_at) / 1000), openAiBatch.created_at);
    t.equal(anthropic!.ended_at, anthropicBatch.ended_at);
    t.same(openai!.key, adaKey, 'the key that made it');
  },
);

t.test("each batch's cost is what the ledger holds for its lines, in micro-credits and in credits", async (t) => {
  const list = await bob.call<BatchList>('GET', `/console/v1/orgs/${acme}/batches`);
  for (const batch of list.body.batches) {
    const cost = await ledgerCost(batch.id);
    t.ok(cost > 0, 'its lines that ran were billed');
    t.equal(batch.cost_micros, cost);
    t.equal(batch.cost, formatCredits(cost));
  }
});

t.test('the list pages by keyset: limit, then after the last id', async (t) => {
  const first = await bob.call<BatchList>('GET', `/console/v1/orgs/${acme}/batches?limit=1`);
  t.same(
    first.body.batches.map((batch) => batch.id),
    [anthropicBatch.id],
  );
  t.equal(first.body.has_more, true);
  t.equal(first.body.last_id, anthropicBatch.id);
  const second = await bob.call<BatchList>(
    'GET',
    `/console/v1/orgs/${acme}/batches?limit=1&after=${first.body.last_id}`,
  );
  t.same(
    second.body.batches.map((batch) => batch.id),
    [openAiBatch.id],
  );
  t.equal(second.body.has_more, false);
});

t.test("a bad limit or a cursor that names none of the organization's batches is a 400 naming it", async (t) => {
  for (const limit of ['0', '101', 'ten']) {
    const answer = await bob.call('GET', `/console/v1/orgs/${acme}/batches?limit=${limit}`);
    t.equal(answer.status, 400);
    t.match(answer.body, { error: { code: 'invalid_request', field: 'limit' } });
  }
  const foreign = await bob.call('GET', `/console/v1/orgs/${acme}/batches?after=${otherBatch}`);
  t.equal(foreign.status, 400);
  t.match(foreign.body, { error: { code: 'invalid_request', field: 'after' } });
});

t.test("an OpenAI batch's download is its output and error files' lines, one per request in input order", async (t) => {
  const answer = await download(bob, `/console/v1/orgs/${acme}/batches/${openAiBatch.id}/results`);
  t.equal(answer.status, 200);
  t.equal(answer.headers.get('content-type'), 'application/x-jsonl');
  t.equal(answer.headers.get('content-disposition'), `attachment; filename="${openAiBatch.id}_results.jsonl"`);
  const lines = jsonLines(answer.text);
  t.same(
    lines.map((line) => line.custom_id),
    ['good', 'bad', 'fine'],
  );
  const client = new OpenAI({ apiKey: adaSecret, baseURL: stack.baseURL, maxRetries: 0 });
  const fileLines: string[] = [];
  for (const id of [openAiBatch.output_file_id!, openAiBatch.error_file_id!])
    fileLines.push(...(await (await client.files.content(id)).text()).split('\n').filter(Boolean));
  t.same(answer.text.split('\n').filter(Boolean).sort(), fileLines.sort(), 'the same lines as the two files');
  t.match(lines[1], { custom_id: 'bad', response: { status_code: 400 } });
});

t.test(
  "an Anthropic batch's download is its results, as GET /v1/messages/batches/{id}/results gives them",
  async (t) => {
    const answer = await download(bob, `/console/v1/orgs/${acme}/batches/${anthropicBatch.id}/results`);
    t.equal(answer.status, 200);
    t.equal(answer.headers.get('content-disposition'), `attachment; filename="${anthropicBatch.id}_results.jsonl"`);
    const fromApi = await fetch(`${stack.gateway.url}/v1/messages/batches/${anthropicBatch.id}/results`, {
      headers: { 'x-api-key': adaSecret, 'anthropic-version': '2023-06-01' },
    });
    t.equal(answer.text, await fromApi.text());
    t.same(
      jsonLines(answer.text).map((line) => [line.custom_id, (line.result as { type: string }).type]),
      [
        ['hello', 'succeeded'],
        ['no-max', 'errored'],
      ],
    );
  },
);

t.test("another organization's batches are a 404, by its path or by its own", async (t) => {
  const byTheirPath = await carol.call('GET', `/console/v1/orgs/${acme}/batches`);
  t.equal(byTheirPath.status, 404);
  t.match(byTheirPath.body, { error: { code: 'org_not_found' } });
  const byOwnPath = await download(carol, `/console/v1/orgs/${other}/batches/${openAiBatch.id}/results`);
  t.equal(byOwnPath.status, 404);
  t.match(JSON.parse(byOwnPath.text), { error: { code: 'batch_not_found' } });
  const own = await carol.call<BatchList>('GET', `/console/v1/orgs/${other}/batches`);
  t.same(
    own.body.batches.map((batch) => batch.id),
    [otherBatch],
    "only its own batch: none of acme's",
  );
});

t.test('a batch that has not ended has no download yet: a 409 that says so', async (t) => {
  const waiting = storedBatch('batch_console_waiting', acme, adaKey.id, { status: 'validating' });
  await store.batches.create(waiting, []);
  const answer = await download(bob, `/console/v1/orgs/${acme}/batches/${waiting.id}/results`);
  t.equal(answer.status, 409);
  t.match(JSON.parse(answer.text), { error: { code: 'batch_not_ended', message: /has not ended \(validating\)/ } });
});
