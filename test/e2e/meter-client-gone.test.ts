// A client that leaves early is metered by one rule in every dialect (docs/credits-and-ledger.md, "What is billed when a
// request does not end normally"): the row's status is what the client got (the response head's
// status if it went out, else 499), the cost what the upstream did (the prompt once it accepted the
// request, plus the output produced; nothing if it had not answered yet).
import t from 'tap';
import { estimateInputTokens } from '../../limits/estimate.js';
import type { DialectName } from '../../dialects/registry.js';
import { DIALECTS, ledgerRow, PATHS, requestBody } from '../helpers/metered-answers.js';
import { orgWithKey } from '../helpers/org-key.js';
import { requestLine } from '../helpers/stack.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, forwardHeaders } from '../kit/stack-presets.js';

const stack = await stackForFile(t, {
  // A credit per million tokens is a micro-credit per token: the cost is the input tokens plus twice the output.
  // No keep-alive ping before the first token either: the head must leave without one.
  yaml:
    'server:\n  sse_ping_ms: 600000\n' +
    forwardHeaders('x-sim-ttft-ms') +
    'pricing: { input_per_mtok: 1, output_per_mtok: 2 }\n' +
    CHAINS.authMeter,
});
const store = await stack.store();
const { key } = await orgWithKey(store, 'acme', { credits: 100 });

const TEXT = 'echo: hello there';
/** The prompt the meter bills when the upstream's usage never came: its input estimate (the same request in every dialect). */
const INPUT_ESTIMATE = estimateInputTokens({ model: 'qwen3-8b', messages: [{ role: 'user', content: TEXT }] });
/** Long enough that the client has left well before it; the sim's delay ends when the gateway hangs up. */
const FIRST_TOKEN_AFTER_MS = '20000';

function post(dialect: DialectName, stream: boolean, signal: AbortSignal): Promise<Response> {
  return fetch(stack.gateway.url + PATHS[dialect], {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      'x-sim-ttft-ms': FIRST_TOKEN_AFTER_MS,
    },
    body: JSON.stringify(requestBody(dialect, stream, TEXT)),
    signal,
  });
}

/** The request's row once its exchange is over (the gateway settles once it sees the client gone). */
async function settledRow(id: string) {
  await requestLine(stack, id);
  const row = await ledgerRow(store.db, id);
  if (row?.state !== 'settled') throw new Error(`no settled row for ${id}: ${row?.state ?? 'no row'}`);
  return row;
}

const billed = (row: {
  status: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number | bigint;
}) => ({
  status: row.status,
  input_tokens: row.input_tokens,
  output_tokens: row.output_tokens,
  cost_micros: Number(row.cost_micros),
});

t.test(
  'regression: a client that leaves a stream before the first token is metered alike in every dialect (the message dialect sent no head before the first token)',
  async (t) => {
    for (const dialect of DIALECTS) {
      const client = new AbortController();
      // The head arrives once the upstream accepted the request; the first token is 20 s away.
      const response = await post(dialect, true, client.signal);
      t.equal(response.status, 200, `${dialect}: the client got the head`);
      client.abort();
      const row = await settledRow(response.headers.get('x-request-id')!);
      t.same(
        billed(row),
        { status: 200, input_tokens: INPUT_ESTIMATE, output_tokens: 0, cost_micros: INPUT_ESTIMATE },
        `${dialect}: the status the client got; the prompt billed, no output`,
      );
    }
  },
);

t.test('a client that leaves before the upstream answered pays nothing, at 499, in every dialect', async (t) => {
  for (const dialect of DIALECTS) {
    const client = new AbortController();
    const before = stack.sim.stats().requests;
    // Not streamed: the sim answers nothing, head included, until its first token.
    const answer = post(dialect, false, client.signal).catch((error: unknown) => error);
    await stack.sim.until((stats) => stats.requests > before);
    client.abort();
    t.match(await answer, { name: 'AbortError' }, `${dialect}: the client left without an answer`);
    // The gateway sends its request id upstream.
    const row = await settledRow(String(stack.sim.requests().at(-1)!.headers['x-request-id']));
    t.same(
      billed(row),
      { status: 499, input_tokens: 0, output_tokens: 0, cost_micros: 0 },
      `${dialect}: client closed request, nothing billed`,
    );
  }
});
