// Upstream usage is checked where it enters the chain: figures that are not whole numbers from 0 to the
// model's context, or output beyond what the produced text accounts for, are replaced by the gateway's
// own count before the rate limiter, the meter or the client see them. The sim plays the misbehaving
// server with `x-sim-usage`.
import t, { type Test } from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { ledgerRow, PATHS, readAnswer, requestBody } from '../helpers/metered-answers.js';
import { orgWithKey } from '../helpers/org-key.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, forwardHeaders } from '../kit/stack-presets.js';

const stack = await stackForFile(t, { yaml: forwardHeaders('x-sim-usage') + CHAINS.authRatelimitMeter });
const store = await stack.store();
const { key } = await orgWithKey(store, 'acme', { credits: 100 });

const call = (path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(stack.gateway.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** One request with the sim reporting `usage`; returns its ledger row once the answer was read. */
async function misreported(t: Test, dialect: DialectName, stream: boolean, usage: string) {
  const response = await call(PATHS[dialect], requestBody(dialect, stream), { 'x-sim-usage': usage });
  t.equal(response.status, 200, 'the answer itself is fine');
  const id = response.headers.get('x-request-id')!;
  const answer = await readAnswer(dialect, stream, response);
  t.ok(answer.complete, 'complete');
  const row = await ledgerRow(store.db, id);
  return { id, row, answer };
}

for (const stream of [false, true]) {
  t.test(
    `regression: an upstream reporting usage of 1e18 (${stream ? 'streamed' : 'not streamed'}) leaves the org's next calls at 200 and is billed sane tokens at a non-zero cost`,
    async (t) => {
      const { id, row, answer } = await misreported(t, 'chat', stream, 'prompt=1e18,completion=1e18');
      t.ok(row, 'a ledger row');
      if (!row) return;
      t.match(row, { state: 'settled', status: 200 });
      t.ok(
        Number.isSafeInteger(row.input_tokens) && row.input_tokens > 0 && row.input_tokens <= 32768,
        `input tokens ${row.input_tokens}: the gateway's estimate`,
      );
      t.ok(
        Number.isSafeInteger(row.output_tokens) && row.output_tokens > 0 && row.output_tokens <= 32768,
        `output tokens ${row.output_tokens}: the produced bytes / 3`,
      );
      t.ok(Number(row.cost_micros) > 0, `cost ${row.cost_micros} µcredits`);
      t.same(
        answer.tokens,
        {
          input_tokens: row.input_tokens,
          output_tokens: row.output_tokens,
          cache_read_tokens: row.cache_read_tokens,
          cache_write_tokens: 0,
        },
        'the client sees the checked figures',
      );
      for (const [path, body] of [
        ['/v1/models', undefined],
        [PATHS.chat, requestBody('chat', false)],
      ] as const) {
        const next = await call(path, body);
        t.equal(next.status, 200, `the next ${path} is answered`);
        await next.arrayBuffer();
      }
      const warning = stack.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.requestId === id && line.level === 40);
      t.match(
        warning,
        { replaced: ['prompt_tokens', 'completion_tokens'], reported: { prompt_tokens: '1000000000000000000' } },
        'logged at warn with the request id',
      );
    },
  );
}

t.test('regression: negative and fractional upstream usage is replaced by whole, non-negative counts', async (t) => {
  for (const [dialect, stream, usage] of [
    ['chat', false, 'prompt=-5,completion=2.5'],
    ['chat', true, 'prompt=3.7,completion=-1,cached=-2'],
    ['messages', true, 'prompt=-1e3,completion=0.5'],
    ['responses', false, 'prompt=2.5,completion=-7'],
  ] as const) {
    await t.test(`${dialect}, ${stream ? 'streamed' : 'not streamed'}, ${usage}`, async (t) => {
      const { row } = await misreported(t, dialect, stream, usage);
      t.ok(row, 'a ledger row');
      if (!row) return;
      for (const field of ['input_tokens', 'output_tokens', 'cache_read_tokens'] as const) {
        t.ok(Number.isSafeInteger(row[field]) && row[field] >= 0, `${field} ${row[field]}`);
      }
      t.ok(row.input_tokens > 0 && row.output_tokens > 0, 'both counted');
      t.ok(Number(row.cost_micros) > 0, `cost ${row.cost_micros} µcredits`);
    });
  }
});

t.test('usage within bounds is billed as the upstream reported it', async (t) => {
  const { row } = await misreported(t, 'chat', false, 'prompt=40,completion=3');
  t.equal(row && row.input_tokens + row.cache_read_tokens, 40, 'prompt tokens (cache reads included)');
  t.equal(row?.output_tokens, 3);
});

t.test('output tokens beyond what the produced text accounts for are replaced by the produced bytes / 3', async (t) => {
  // "echo: hello there" answers "hello there": 11 bytes, so 4 tokens by the gateway's count.
  const { row } = await misreported(t, 'chat', false, 'completion=5000');
  t.match(row, { output_tokens: 4 });
});
