// The meter plugin (spec sections 7 and 8.4): every request's cost debited once, with one settled
// ledger row; 402 at a zero or negative balance (never on count_tokens); holds that bound overdraw
// under concurrency; a client that leaves pays for what was produced; upstream failures cost nothing.
import t from 'tap';
import type { Store } from '../../store/store.js';
import type { DialectName } from '../../dialects/registry.js';
import { DIALECTS, ledgerRow, PATHS, readAnswer, requestBody } from '../helpers/metered-answers.js';
import { requestLine, startStack, type Stack } from '../helpers/stack.js';
import { freshStoreEnvironment } from '../helpers/test-store.js';
import { defaultPricer } from '../kit/prices.js';

let stack: Stack;
let store: Store;
let key: string;
let keyId: string;
let orgId: string;
const pricer = defaultPricer();

t.before(async () => {
  stack = await startStack({
    yaml: 'upstream:\n  forward_headers: [x-sim-fault, x-sim-itl-ms, x-sim-output-tokens]\nplugins:\n  - name: auth\n  - name: meter\n    options: { default_hold_output_tokens: 4096 }\n',
    env: await freshStoreEnvironment(),
  });
  store = await stack.store();
  orgId = (await store.orgs.create('acme')).id;
  await store.orgs.addCredits('acme', 100_000_000);
  const created = await store.keys.create('acme', 'tests');
  key = created.key;
  keyId = created.record.id;
});
t.teardown(async () => {
  await stack.close();
});

const post = (
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> =>
  fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${headers.key ?? key}`, ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

const costOf = (row: {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  searches: number;
}): number =>
  pricer.cost({
    input: row.input_tokens,
    output: row.output_tokens,
    cacheRead: row.cache_read_tokens,
    cacheWrite5m: row.cache_write_tokens,
    cacheWrite1h: 0,
    searches: row.searches,
  });

t.test(
  'a request debits the balance by exactly its ledger row cost, adds it to lifetime spend, and has one settled row with its usage',
  async (t) => {
    for (const dialect of DIALECTS) {
      for (const stream of [false, true]) {
        const name = `${dialect}, ${stream ? 'stream' : 'body'}`;
        const before = await store.orgs.get('acme');
        const sentAt = Date.now();
        const response = await post(PATHS[dialect], requestBody(dialect, stream));
        t.equal(response.status, 200, name);
        const id = response.headers.get('x-request-id')!;
        const answer = await readAnswer(dialect, stream, response);
        t.ok(answer.complete, `${name}: complete`);
        // Read at once: the row was committed before the end of the response left the gateway.
        const row = await ledgerRow(store.db, id);
        const after = await store.orgs.get('acme');
        t.ok(row, `${name}: a row with the request id`);
        if (!row) continue;
        t.match(row, { state: 'settled', org_id: orgId, key_id: keyId, dialect, status: 200, searches: 0 }, name);
        t.same(
          {
            input_tokens: row.input_tokens,
            output_tokens: row.output_tokens,
            cache_read_tokens: row.cache_read_tokens,
            cache_write_tokens: row.cache_write_tokens,
          },
          answer.tokens,
          `${name}: the row's tokens are the response's usage`,
        );
        t.ok(row.output_tokens > 0 && row.input_tokens + row.cache_read_tokens > 0, `${name}: tokens counted`);
        t.equal(Number(row.cost_micros), costOf(row), `${name}: cost from the tokens and the prices`);
        t.ok(Number(row.cost_micros) > 0, `${name}: a cost`);
        t.equal(
          before.balanceMicros - after.balanceMicros,
          Number(row.cost_micros),
          `${name}: balance debited by the cost, the hold given back`,
        );
        t.equal(
          after.spentMicros - before.spentMicros,
          Number(row.cost_micros),
          `${name}: lifetime spend grows by the cost`,
        );
        t.ok(
          row.duration_ms >= 0 && row.created_at >= sentAt && row.created_at <= Date.now(),
          `${name}: duration, and the time of the request`,
        );
        const rows = await store.db.selectFrom('usage').select('id').where('id', '=', id).execute();
        t.equal(rows.length, 1, `${name}: one row`);
      }
    }
  },
);

t.test('the request log line carries the tokens and the cost', async (t) => {
  const response = await post(PATHS.chat, requestBody('chat', false));
  const id = response.headers.get('x-request-id');
  await response.text();
  const row = await ledgerRow(store.db, id!);
  const line = await requestLine(stack, id);
  t.match(line, {
    input_tokens: row!.input_tokens + row!.cache_read_tokens,
    output_tokens: row!.output_tokens,
    cost_micros: Number(row!.cost_micros),
  });
});

t.test('402 at a zero balance and at a negative balance, in the chat dialect and the message dialect', async (t) => {
  await store.orgs.create('broke');
  const brokeKey = (await store.keys.create('broke', 'k')).key;
  const message = (balance: string): string =>
    `Insufficient credits: your organization's balance is ${balance} credits. Add credits to continue (an admin can run \`gateway credits add ORG AMOUNT\` or use the dashboard).`;
  for (const [balance, micros] of [
    ['0', 0],
    ['-1.5', -1_500_000],
  ] as const) {
    await store.db.updateTable('orgs').set({ balance_micros: micros }).where('name', '=', 'broke').execute();
    for (const stream of [false, true]) {
      const chat = await post(PATHS.chat, requestBody('chat', stream), { key: brokeKey });
      t.equal(chat.status, 402, `chat, balance ${balance}`);
      t.same(await chat.json(), {
        error: { message: message(balance), type: 'insufficient_quota', code: 'insufficient_credits', param: null },
      });
      const responses = await post(PATHS.responses, requestBody('responses', stream), { key: brokeKey });
      t.equal(responses.status, 402, `responses, balance ${balance}`);
      t.same(await responses.json(), {
        error: { message: message(balance), type: 'insufficient_quota', code: 'insufficient_credits', param: null },
      });
      const messages = await post(PATHS.messages, requestBody('messages', stream), { key: brokeKey });
      t.equal(messages.status, 402, `messages, balance ${balance}`);
      t.same(await messages.json(), { type: 'error', error: { type: 'billing_error', message: message(balance) } });
      t.notOk(await ledgerRow(store.db, messages.headers.get('x-request-id')!), 'no ledger row for a refused request');
    }
  }
  const broke = await store.orgs.get('broke');
  t.equal(broke.balanceMicros, -1_500_000, 'a refusal changes nothing');
  t.equal(broke.spentMicros, 0);
});

t.test("a broke organization's bad request is a 400, not a 402: validation comes before the balance", async (t) => {
  await store.orgs.create('broke-and-wrong');
  const brokeKey = (await store.keys.create('broke-and-wrong', 'k')).key;
  const bad = {
    chat: { messages: 'hello' },
    responses: { input: 42 },
    messages: { max_tokens: 16, messages: 'hello' },
  };
  for (const dialect of DIALECTS) {
    const response = await post(PATHS[dialect], { model: 'qwen3-8b', ...bad[dialect] }, { key: brokeKey });
    t.equal(response.status, 400, dialect);
    t.match(await response.text(), /messages|input/, `${dialect}: the message names the field`);
  }
});

t.test('count_tokens never answers 402, at a zero or negative balance', async (t) => {
  await store.orgs.create('empty');
  const emptyKey = (await store.keys.create('empty', 'k')).key;
  for (const micros of [0, -5]) {
    await store.db.updateTable('orgs').set({ balance_micros: micros }).where('name', '=', 'empty').execute();
    const response = await post(
      '/v1/messages/count_tokens',
      { model: 'qwen3-8b', messages: [{ role: 'user', content: 'hi' }] },
      { key: emptyKey },
    );
    t.equal(response.status, 200, `balance ${micros}`);
    t.match(await response.json(), { input_tokens: Number });
    t.equal(
      (await post(PATHS.messages, requestBody('messages', false), { key: emptyKey })).status,
      402,
      'while generation gets 402',
    );
  }
});

t.test('concurrency: 20 requests at once on a balance worth ~3 do not overdraw by more than one request', async (t) => {
  await store.orgs.create('thin');
  const thinKey = (await store.keys.create('thin', 'k')).key;
  // max_tokens 50 and 100 tokens asked of the sim: every answer is cut at 50, so its cost is about its hold.
  const body = requestBody('chat', false, 'Tell me about concurrency.', 50);
  const probe = await post(PATHS.chat, body, { 'x-sim-output-tokens': '100' });
  await probe.text();
  const probeRow = (await ledgerRow(store.db, probe.headers.get('x-request-id')!))!;
  t.equal(probeRow.output_tokens, 50, 'the answer is cut at max_tokens');
  const oneCost = Number(probeRow.cost_micros);
  const initial = Math.round(2.5 * oneCost);
  await store.orgs.addCredits('thin', initial);
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => post(PATHS.chat, body, { key: thinKey, 'x-sim-output-tokens': '100' })),
  );
  await Promise.all(responses.map((response) => response.text()));
  const statuses = responses.map((response) => response.status);
  const served = statuses.filter((status) => status === 200).length;
  t.equal(served + statuses.filter((status) => status === 402).length, 20, `only 200 and 402: ${statuses.join(' ')}`);
  t.ok(served >= 2 && served <= 4, `${served} served`);
  const thin = await store.orgs.get('thin');
  t.ok(thin.balanceMicros >= -oneCost, `final balance ${thin.balanceMicros} ≥ −${oneCost}`);
  const rows = await store.db
    .selectFrom('usage')
    .innerJoin('orgs', 'orgs.id', 'usage.org_id')
    .select(['usage.cost_micros', 'usage.state'])
    .where('orgs.name', '=', 'thin')
    .execute();
  t.equal(rows.length, served, 'one row per served request');
  t.ok(rows.every((row) => row.state === 'settled'));
  const total = rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
  t.equal(initial - thin.balanceMicros, total, 'the balance moved by the sum of the rows');
  t.equal(thin.spentMicros, total);
});

t.test('client disconnect mid-stream: the row is settled with the tokens produced', async (t) => {
  for (const dialect of ['messages', 'chat'] as DialectName[]) {
    const before = await store.orgs.get('acme');
    const controller = new AbortController();
    const response = await post(
      PATHS[dialect],
      requestBody(dialect, true, 'echo: a long answer please', 200),
      { 'x-sim-itl-ms': '30', 'x-sim-output-tokens': '200' },
      controller.signal,
    );
    const id = response.headers.get('x-request-id')!;
    const reader = response.body!.getReader();
    let received = '';
    // Six events (a start, a few text deltas), 30 ms apart after the first token.
    while (received.split('\n\n').length <= 6) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await requestLine(stack, id);
    const row = await ledgerRow(store.db, id);
    t.match(row, { state: 'settled' }, `${dialect}: settled when the exchange ended`);
    if (!row) continue;
    t.ok(
      row.output_tokens >= 3 && row.output_tokens < 100,
      `${dialect}: ${row.output_tokens} output tokens, what was produced`,
    );
    t.ok(row.input_tokens > 0, `${dialect}: input billed`);
    t.equal(Number(row.cost_micros), costOf(row), `${dialect}: cost`);
    t.equal(row.status, 200, `${dialect}: the status the client got`);
    const after = await store.orgs.get('acme');
    t.equal(before.balanceMicros - after.balanceMicros, Number(row.cost_micros), `${dialect}: debited by the cost`);
  }
});

t.test('an upstream error before any output settles at zero cost, with the error status', async (t) => {
  for (const stream of [false, true]) {
    const before = await store.orgs.get('acme');
    const response = await post(PATHS.chat, requestBody('chat', stream), { 'x-sim-fault': '500' });
    t.equal(response.status, 502);
    await response.text();
    const row = await ledgerRow(store.db, response.headers.get('x-request-id')!);
    t.match(row, { state: 'settled', status: 502, input_tokens: 0, output_tokens: 0, cost_micros: 0 });
    const after = await store.orgs.get('acme');
    t.equal(after.balanceMicros, before.balanceMicros, 'the hold is given back whole');
    t.equal(after.spentMicros, before.spentMicros);
  }
});

t.test('a stream the upstream cuts after some output is billed for what was produced', async (t) => {
  // A 24-token answer (the echo prompt's is 3 tokens: cut:5 would come after its usage chunk).
  const response = await post(PATHS.chat, requestBody('chat', true, 'Tell me about faults.'), {
    'x-sim-fault': 'cut:5',
  });
  const text = await response.text();
  t.match(text, /error/);
  const row = await ledgerRow(store.db, response.headers.get('x-request-id')!);
  t.match(row, { state: 'settled', status: 200 });
  t.ok(
    row!.output_tokens > 0 && row!.output_tokens < 24,
    `${row!.output_tokens} output tokens, estimated from the text`,
  );
  t.equal(Number(row!.cost_micros), costOf(row!));
});
