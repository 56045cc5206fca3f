// Upstream faults, in each dialect, streamed and not (issue #11; docs/endpoints.md "Errors"). For every fault the
// sim injects (an error status, a refused or reset connection, a body or stream cut or stalled part-way),
// what the client gets (a status and an error body in its dialect; once a stream has started, the
// dialect's error event and no end event) and what the ledger keeps (docs/credits-and-ledger.md "What is billed when a request
// does not end normally"): a failure before any output costs nothing and is settled with the error's
// status; a stream broken after some output pays for what was produced, at the status the client got.
import { createServer } from 'node:net';
import t, { type Test } from 'tap';
import { auditBalances } from '../../store/balance-audit.js';
import type { Store } from '../../store/store.js';
import type { DialectName } from '../../dialects/registry.js';
import { DIALECTS, ledgerRow, PATHS, requestBody } from '../helpers/metered-answers.js';
import type { Frame } from '../kit/frames.js';
import { readSse } from '../kit/sse-reader.js';
import { startStack, type Stack } from '../helpers/stack.js';

/** Micro-credits per token: prices in round numbers so that a row's cost can be checked by hand. */
const PRICE = { input: 1000, cacheRead: 100, output: 3000 };
const CONFIG = `upstream:
  forward_headers: [x-sim-fault, x-sim-output-tokens]
  idle_timeout_ms: 200
  retries: 1
  retry_base_ms: 1
  retry_max_ms: 1
pricing:
  input_per_mtok: ${PRICE.input}
  output_per_mtok: ${PRICE.output}
  cache_read_multiplier: ${PRICE.cacheRead / PRICE.input}
plugins:
  - name: auth
  - name: meter
`;
/** Tokens the sim generates for every request here; the faults break the answer well before its end. */
const OUTPUT_TOKENS = 16;
const STREAMS = [false, true] as const;

interface Gateway {
  stack: Stack;
  store: Store;
  orgId: string;
  key: string;
}

/** In front of the sim. */
let served: Gateway;
/** In front of a closed port: every connection is refused. */
let refused: Gateway;
/**
 * In front of the sim as an upstream without running usage (flavor `openai`): a non-streamed request is a
 * plain non-streamed call there, its answer one body (on vLLM it is read as a stream: answer-plan.ts).
 */
let plain: Gateway;

async function openGateway(upstreamUrls?: string[], flavor = 'vllm'): Promise<Gateway> {
  const yaml = CONFIG.replace('upstream:\n', `upstream:\n  flavor: ${flavor}\n`);
  const stack = await startStack({ yaml, ...(upstreamUrls ? { upstreamUrls } : {}) });
  const store = await stack.store();
  const orgId = (await store.orgs.create('acme')).id;
  await store.orgs.addCredits('acme', 100_000_000);
  return { stack, store, orgId, key: (await store.keys.create('acme', 'faults')).key };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.before(async () => {
  served = await openGateway();
  refused = await openGateway([`http://127.0.0.1:${await closedPort()}/v1`]);
  plain = await openGateway(undefined, 'openai');
});
t.teardown(async () => {
  await served.stack.close();
  await refused.stack.close();
  await plain.stack.close();
});

/** A fault: a value of `x-sim-fault`, or `refused` for the gateway whose upstream port is closed. */
type Fault = string;

interface Outcome {
  status: number;
  id: string;
  contentType: string;
  text: string;
  /** The organization's balance before and after the request. */
  balanceBefore: number;
  balanceAfter: number;
}

/** Sends one request with a fault and reads its answer to the end; waits until the upstream call is over. */
async function send(
  dialect: DialectName,
  stream: boolean,
  fault: Fault,
  headers: Record<string, string> = {},
  via?: Gateway,
): Promise<Outcome> {
  const gateway = via ?? (fault === 'refused' ? refused : served);
  const balanceBefore = (await gateway.store.orgs.get(gateway.orgId)).balanceMicros;
  const response = await fetch(gateway.stack.gateway.url + PATHS[dialect], {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${gateway.key}`,
      'x-sim-output-tokens': String(OUTPUT_TOKENS),
      ...(fault === 'refused' ? {} : { 'x-sim-fault': fault }),
      ...headers,
    },
    body: JSON.stringify(requestBody(dialect, stream, 'Tell me about upstream faults.', 100)),
  });
  // The gateway ends the response itself: reading it to the end never throws.
  const text = await response.text();
  // The upstream call is over: closed by the fault or aborted by the gateway.
  await gateway.stack.sim.until((stats) => stats.inFlight === 0);
  return {
    status: response.status,
    id: response.headers.get('x-request-id') ?? '',
    contentType: response.headers.get('content-type') ?? '',
    text,
    balanceBefore,
    balanceAfter: (await gateway.store.orgs.get(gateway.orgId)).balanceMicros,
  };
}

/** What the client sees of a gateway error in each dialect. */
interface ClientError {
  /** The chat and responses dialects' `error.code`. */
  code: string;
  /** The chat and responses dialects' `error.type`. */
  type: string;
  /** The message dialect's `error.type`. */
  messagesType: string;
}

const UNREACHABLE: ClientError = { code: 'upstream_unreachable', type: 'server_error', messagesType: 'api_error' };
const CUT: ClientError = { code: 'upstream_stream_cut', type: 'server_error', messagesType: 'api_error' };
const TIMEOUT: ClientError = { code: 'upstream_timeout', type: 'server_error', messagesType: 'api_error' };

function checkErrorObject(t: Test, dialect: DialectName, body: unknown, expected: ClientError): void {
  if (dialect === 'messages')
    t.match(
      body,
      { type: 'error', error: { type: expected.messagesType, message: String } },
      "the message dialect's error",
    );
  else
    t.match(
      body,
      { error: { type: expected.type, code: expected.code, param: null, message: String } },
      `the ${dialect} dialect's error`,
    );
  t.notMatch(JSON.stringify(body), /Simulated|x-sim-fault/, "the upstream's own text is not shown");
}

/** The request log line names the gateway error. */
function checkLogged(t: Test, gateway: Gateway, id: string, code: string): void {
  const line = gateway.stack.logs
    .map((text) => JSON.parse(text) as Record<string, unknown>)
    .find((entry) => entry.msg === 'request' && entry.requestId === id);
  t.equal(line?.error, code, `logged as ${code}`);
}

// ---------------------------------------------------------------------------------------------------
// Failures before any response byte: a status and an error body in the dialect; settled at zero cost.

interface FailureBeforeOutput {
  rule: string;
  fault: Fault;
  streams: readonly boolean[];
  status: number;
  error: ClientError;
  logged: string;
  /** Requests the sim received (the first attempt and the retries), when it received any. */
  attempts?: number;
  /** Sent through the gateway whose upstream gives no running usage: a non-streamed answer is one body there. */
  plain?: true;
}

const FAILURES_BEFORE_OUTPUT: FailureBeforeOutput[] = [
  {
    rule: 'an upstream 500 before any output: 502 upstream_error in the dialect, not retried, settled at zero cost with 502',
    fault: '500',
    streams: STREAMS,
    status: 502,
    error: { code: 'upstream_error', type: 'server_error', messagesType: 'api_error' },
    logged: 'GW_ERR_UPSTREAM_FAILED',
    attempts: 1,
  },
  {
    rule: 'an upstream 503 before any output: 503 upstream_overloaded in the dialect (overloaded_error), settled at zero cost with 503',
    fault: '503',
    streams: STREAMS,
    status: 503,
    error: { code: 'upstream_overloaded', type: 'server_error', messagesType: 'overloaded_error' },
    logged: 'GW_ERR_UPSTREAM_OVERLOADED',
    attempts: 1,
  },
  {
    rule: 'an upstream 429 is the upstream overloaded too: 503 upstream_overloaded, settled at zero cost with 503',
    fault: '429',
    streams: STREAMS,
    status: 503,
    error: { code: 'upstream_overloaded', type: 'server_error', messagesType: 'overloaded_error' },
    logged: 'GW_ERR_UPSTREAM_OVERLOADED',
    attempts: 1,
  },
  {
    rule: 'an upstream 504 before any output: 504 upstream_timeout, settled at zero cost with 504',
    fault: '504',
    streams: STREAMS,
    status: 504,
    error: TIMEOUT,
    logged: 'GW_ERR_UPSTREAM_TIMEOUT',
    attempts: 1,
  },
  {
    rule: 'a refused connection: 502 upstream_unreachable after the retries, settled at zero cost with 502',
    fault: 'refused',
    streams: STREAMS,
    status: 502,
    error: UNREACHABLE,
    logged: 'GW_ERR_UPSTREAM_UNREACHABLE',
  },
  {
    rule: 'a connection reset before any byte: retried, then 502 upstream_unreachable, settled at zero cost with 502',
    fault: 'reset',
    streams: STREAMS,
    status: 502,
    error: UNREACHABLE,
    logged: 'GW_ERR_UPSTREAM_UNREACHABLE',
    attempts: 2,
  },
  {
    rule: 'a body the upstream cuts part-way: 502 upstream_stream_cut, settled at zero cost with 502 (the client got nothing)',
    fault: 'cut:40',
    streams: [false],
    status: 502,
    error: CUT,
    logged: 'GW_ERR_UPSTREAM_STREAM_CUT',
    attempts: 1,
    plain: true,
  },
  {
    rule: 'a body the upstream stalls part-way past idle_timeout_ms: 504 upstream_timeout, the upstream call aborted, settled at zero cost with 504',
    fault: 'stall:40',
    streams: [false],
    status: 504,
    error: TIMEOUT,
    logged: 'GW_ERR_UPSTREAM_TIMEOUT',
    attempts: 1,
    plain: true,
  },
  {
    rule: 'a non-streamed answer whose upstream stream (vLLM) is cut part-way: 502 upstream_stream_cut, settled at zero cost with 502 (the client got nothing)',
    fault: 'cut:6',
    streams: [false],
    status: 502,
    error: CUT,
    logged: 'GW_ERR_UPSTREAM_STREAM_CUT',
    attempts: 1,
  },
  {
    rule: 'a non-streamed answer whose upstream stream (vLLM) stalls part-way past idle_timeout_ms: 504 upstream_timeout, the upstream call aborted, settled at zero cost with 504',
    fault: 'stall:6',
    streams: [false],
    status: 504,
    error: TIMEOUT,
    logged: 'GW_ERR_UPSTREAM_TIMEOUT',
    attempts: 1,
  },
];

for (const failure of FAILURES_BEFORE_OUTPUT) {
  t.test(failure.rule, async (t) => {
    for (const dialect of DIALECTS) {
      for (const stream of failure.streams) {
        await t.test(`${dialect}, ${stream ? 'streamed' : 'not streamed'}`, async (t) => {
          const gateway = failure.plain ? plain : failure.fault === 'refused' ? refused : served;
          const outcome = await send(dialect, stream, failure.fault, {}, gateway);
          t.equal(outcome.status, failure.status, 'the status');
          t.match(outcome.contentType, /^application\/json/, 'a JSON error body, not a stream');
          checkErrorObject(t, dialect, JSON.parse(outcome.text), failure.error);
          checkLogged(t, gateway, outcome.id, failure.logged);
          if (failure.attempts !== undefined) {
            const attempts = gateway.stack.sim
              .requests()
              .filter((request) => request.headers['x-request-id'] === outcome.id);
            t.equal(attempts.length, failure.attempts, `${failure.attempts} call(s) reached the upstream`);
          }
          const row = await ledgerRow(gateway.store.db, outcome.id);
          t.match(
            row,
            {
              state: 'settled',
              dialect,
              status: failure.status,
              input_tokens: 0,
              output_tokens: 0,
              cache_read_tokens: 0,
              cost_micros: 0,
            },
            "settled at zero cost with the error's status",
          );
          t.equal(outcome.balanceAfter, outcome.balanceBefore, 'the hold is given back whole');
        });
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// Failures after a stream started: the text so far, then the dialect's error event and no end event.

interface StreamRead {
  frames: Frame[];
  /** The text deltas the client got. */
  deltas: string[];
  /** The message dialect's input tokens, from message_start. */
  inputTokens: number | undefined;
}

function readStream(dialect: DialectName, text: string): StreamRead {
  const frames = readSse(text);
  const deltas: string[] = [];
  let inputTokens: number | undefined;
  for (const frame of frames) {
    if (frame.data === '[DONE]') continue;
    const data = JSON.parse(frame.data) as Record<string, unknown>;
    if (dialect === 'chat') {
      const content = (data.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content;
      if (content) deltas.push(content);
    } else if (dialect === 'messages') {
      const delta = data.delta as { type?: string; text?: string } | undefined;
      if (data.type === 'content_block_delta' && delta?.type === 'text_delta' && delta.text) deltas.push(delta.text);
      if (data.type === 'message_start')
        inputTokens = (data.message as { usage: { input_tokens: number } }).usage.input_tokens;
    } else if (data.type === 'response.output_text.delta') {
      const delta = data.delta as string | { output_text: string };
      deltas.push(typeof delta === 'string' ? delta : delta.output_text);
    }
  }
  return { frames, deltas, inputTokens };
}

/**
 * The dialect's error event, carrying the dialect's error object, ends the stream; no end event came. In the
 * responses dialect `response.failed` follows it, the lifecycle's terminal event, with the same error.
 */
function checkErrorEvent(t: Test, dialect: DialectName, frames: StreamRead['frames'], expected: ClientError): void {
  const failed = dialect === 'responses' ? frames.at(-1) : undefined;
  const last = dialect === 'responses' ? frames.at(-2) : frames.at(-1);
  t.equal(last?.event, 'error', 'the stream ends with an error event');
  const data = JSON.parse(last?.data ?? '{}') as Record<string, unknown>;
  if (dialect === 'responses') {
    t.match(
      data,
      { type: 'error', code: expected.code, message: String, param: null, sequence_number: Number },
      "OpenAI's error event",
    );
    checkErrorObject(t, 'responses', { error: data.error }, expected);
    t.equal(failed?.event, 'response.failed', 'then response.failed');
    t.match(
      JSON.parse(failed?.data ?? '{}'),
      { response: { status: 'failed', error: { code: expected.code, message: String } } },
      'the failed response carries the error',
    );
  } else checkErrorObject(t, dialect, data, expected);
  const ends: Record<DialectName, string[]> = {
    chat: ['message_stop'],
    messages: ['message_stop', 'message_delta'],
    responses: ['response.completed', 'response.incomplete'],
  };
  t.notOk(
    frames.some((frame) => frame.event !== null && ends[dialect].includes(frame.event)),
    'no end event',
  );
}

const costOf = (row: { input_tokens: number; cache_read_tokens: number; output_tokens: number }): number =>
  row.input_tokens * PRICE.input + row.cache_read_tokens * PRICE.cacheRead + row.output_tokens * PRICE.output;

interface BrokenStream {
  rule: string;
  fault: Fault;
  error: ClientError;
  logged: string;
}

// `cut:6` / `stall:6`: the role chunk and five tokens of sixteen, then the fault.
const BROKEN_STREAMS: BrokenStream[] = [
  {
    rule: 'a stream the upstream cuts after some tokens: the tokens, then the error event upstream_stream_cut and no end; billed for what was produced, status 200',
    fault: 'cut:6',
    error: CUT,
    logged: 'GW_ERR_UPSTREAM_STREAM_CUT',
  },
  {
    rule: 'a stream the upstream stalls after some tokens: after idle_timeout_ms the error event upstream_timeout and no end, the upstream call aborted; billed for what was produced, status 200',
    fault: 'stall:6',
    error: TIMEOUT,
    logged: 'GW_ERR_UPSTREAM_TIMEOUT',
  },
];

for (const broken of BROKEN_STREAMS) {
  t.test(broken.rule, async (t) => {
    for (const dialect of DIALECTS) {
      await t.test(dialect, async (t) => {
        const outcome = await send(dialect, true, broken.fault);
        t.equal(outcome.status, 200, 'the stream had started');
        t.match(outcome.contentType, /^text\/event-stream/);
        const read = readStream(dialect, outcome.text);
        t.equal(read.deltas.length, 5, 'the five tokens before the fault reached the client');
        checkErrorEvent(t, dialect, read.frames, broken.error);
        checkLogged(t, served, outcome.id, broken.logged);
        const row = await ledgerRow(served.store.db, outcome.id);
        t.match(row, { state: 'settled', dialect, status: 200 }, 'settled with the status the client got');
        if (!row) return;
        // The gateway asks vLLM for its running usage on every stream: the bill is exact in every dialect.
        if (dialect === 'messages')
          t.equal(row.input_tokens + row.cache_read_tokens, read.inputTokens, 'the input tokens of message_start');
        t.ok(row.input_tokens > 0, `the prompt (${row.input_tokens})`);
        t.equal(row.output_tokens, read.deltas.length, 'the tokens produced, from the running usage');
        t.ok(row.output_tokens < OUTPUT_TOKENS, 'less than the whole answer');
        t.equal(Number(row.cost_micros), costOf(row), 'the cost of those tokens');
        t.equal(
          outcome.balanceBefore - outcome.balanceAfter,
          Number(row.cost_micros),
          'the balance debited by the cost, the rest of the hold given back',
        );
      });
    }
  });
}

t.test(
  'a stream the upstream cuts before its first chunk: the error event and no end; settled at zero cost, status 200',
  async (t) => {
    for (const dialect of DIALECTS) {
      await t.test(dialect, async (t) => {
        const outcome = await send(dialect, true, 'cut:0');
        t.equal(outcome.status, 200, 'the upstream had answered 200, so the stream had started');
        const read = readStream(dialect, outcome.text);
        t.same(read.deltas, [], 'no text');
        checkErrorEvent(t, dialect, read.frames, CUT);
        const row = await ledgerRow(served.store.db, outcome.id);
        t.match(
          row,
          { state: 'settled', dialect, status: 200, input_tokens: 0, output_tokens: 0, cost_micros: 0 },
          'nothing was produced: zero cost',
        );
        t.equal(outcome.balanceAfter, outcome.balanceBefore, 'the hold is given back whole');
      });
    }
  },
);

// `cut:999` / `stall:999`: every chunk, the usage included, but never the [DONE].
t.test(
  'regression: a stream whose upstream broke after the whole answer (only [DONE] missing) ended in an error event, though it was billed in full',
  async (t) => {
    const ends: Record<DialectName, string> = {
      chat: 'message_stop',
      messages: 'message_stop',
      responses: 'response.completed',
    };
    // The fix is below the dialects: the stall (a second of idle timeout each) is checked in one.
    const cases = [
      ...DIALECTS.map((dialect) => ({ fault: 'cut:999', dialect })),
      { fault: 'stall:999', dialect: 'chat' as DialectName },
    ];
    for (const { fault, dialect } of cases) {
      await t.test(`${fault}, ${dialect}`, async (t) => {
        const outcome = await send(dialect, true, fault);
        const read = readStream(dialect, outcome.text);
        t.equal(read.frames.at(-1)?.event, ends[dialect], 'the stream ends normally');
        t.notOk(
          read.frames.some((frame) => frame.event === 'error'),
          'no error event',
        );
        t.equal(read.deltas.length, OUTPUT_TOKENS - 1, 'the whole text (the end-of-turn token streams none)');
        const row = await ledgerRow(served.store.db, outcome.id);
        t.match(
          row,
          { state: 'settled', status: 200, output_tokens: OUTPUT_TOKENS },
          'billed from the usage the upstream sent',
        );
        t.ok(row && Number(row.cost_micros) === costOf(row));
      });
    }
  },
);

t.test(
  "in the chat dialect's openai profile, a broken stream ends with a data line carrying the error object and no [DONE]",
  async (t) => {
    for (const [fault, error] of [
      ['cut:6', CUT],
      ['stall:6', TIMEOUT],
    ] as const) {
      await t.test(fault, async (t) => {
        const outcome = await send('chat', true, fault, { 'x-gateway-wire': 'openai' });
        t.equal(outcome.status, 200);
        const read = readStream('chat', outcome.text);
        t.equal(read.deltas.length, 5, 'the tokens before the fault');
        t.ok(
          read.frames.every((frame) => frame.event === null),
          'data-only lines',
        );
        checkErrorObject(t, 'chat', JSON.parse(read.frames.at(-1)?.data ?? '{}'), error);
        t.notOk(
          read.frames.some((frame) => frame.data === '[DONE]'),
          'no [DONE]',
        );
        const row = await ledgerRow(served.store.db, outcome.id);
        t.match(row, { state: 'settled', status: 200 });
        t.ok(row && row.output_tokens > 0 && Number(row.cost_micros) === costOf(row), 'billed for what was produced');
      });
    }
  },
);

t.test(
  'every fault at once, in every dialect, streamed and not: each request settled once, none left held',
  async (t) => {
    const faults = ['500', '503', 'reset', 'cut:40', 'stall:40', 'cut:6', 'stall:6', 'cut:0', 'refused'];
    const sent = faults.flatMap((fault) =>
      DIALECTS.flatMap((dialect) => STREAMS.map((stream) => ({ fault, dialect, stream }))),
    );
    const outcomes = await Promise.all(sent.map(({ fault, dialect, stream }) => send(dialect, stream, fault)));
    for (const [i, outcome] of outcomes.entries()) {
      const { fault, dialect, stream } = sent[i]!;
      const gateway = fault === 'refused' ? refused : served;
      const rows = await gateway.store.db.selectFrom('usage').selectAll().where('id', '=', outcome.id).execute();
      t.equal(rows.length, 1, `${fault} ${dialect} ${stream ? 'streamed' : 'not streamed'}: one row`);
      t.match(rows[0], { state: 'settled', status: outcome.status });
    }
  },
);

// Runs last: the whole file's faults left the gateways up, no upstream call open and the books balanced.
t.test(
  'after every fault the gateway answers /health, no upstream call is left open, no hold is left and the books balance',
  async (t) => {
    for (const gateway of [served, refused, plain]) {
      const health = await fetch(`${gateway.stack.gateway.url}/health`);
      t.equal(health.status, 200, '/health answers 200');
      await health.text();
      t.equal(gateway.stack.sim.stats().inFlight, 0, 'no upstream call in flight');
      const held = await gateway.store.db.selectFrom('usage').select('id').where('state', '=', 'held').execute();
      t.same(held, [], 'no open hold');
      const rows = await gateway.store.db.selectFrom('usage').select('id').execute();
      t.ok(rows.length > 0, `${rows.length} ledger rows`);
      for (const audit of await auditBalances(gateway.store.db))
        t.equal(audit.discrepancyMicros, 0, 'balance = credits added − settled − holds');
    }
    t.ok(served.stack.sim.stats().aborted > 0, 'the faults broke upstream calls');
  },
);
