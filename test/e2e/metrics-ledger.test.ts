// The metrics are exact: after a known workload (successes in every dialect, streamed and not, 400s,
// 429s, 402s, searches, a token count) the counters on /metrics equal what the clients received and
// what the ledger holds.
import t, { type Test } from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { DIALECTS, PATHS, readAnswer, requestBody, type LedgerTokens } from '../helpers/metered-answers.js';
import { orgWithKey } from '../helpers/org-key.js';
import { scrape, sumOf, type Sample } from '../helpers/prometheus-text.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, tiersOf } from '../kit/stack-presets.js';

const yaml =
  tiersOf({ name: 'Start', fromSpend: 0, requests: 1000 }, { name: 'Tiny', fromSpend: 1000, requests: 1 }) +
  CHAINS.authRatelimitMeterSearch;

const stack = await stackForFile(t, { yaml, env: { GATEWAY_METRICS_PORT: '0' } });
const metricsUrl = stack.gateway.metricsUrl!;
const store = await stack.store();
/** A key of an organization with credits on the Start tier; one on the Tiny tier (one request a minute); one without credits. */
const keys = {
  paying: (await orgWithKey(store, 'paying', { credits: 100 })).key,
  tiny: (await orgWithKey(store, 'tiny', { credits: 100, spentCredits: 1000 })).key,
  broke: (await orgWithKey(store, 'broke')).key,
};

/** What a client received: the status, and the usage of a complete answer (ledger terms). */
interface Received {
  status: number;
  tokens: LedgerTokens | undefined;
}
const received: Received[] = [];

async function send(
  key: string,
  dialect: DialectName,
  body: unknown,
  options: { path?: string; stream?: boolean } = {},
): Promise<Received> {
  const response = await fetch(stack.gateway.url + (options.path ?? PATHS[dialect]), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const answer = await readAnswer(dialect, options.stream ?? false, response);
  const got = { status: response.status, tokens: answer.complete ? answer.tokens : undefined };
  received.push(got);
  return got;
}

const SEARCH_TOOL = { type: 'web_search_20250305', name: 'web_search' };

/** The workload: every kind of answer the counters must agree on. */
async function workload(t: Test): Promise<void> {
  for (const dialect of DIALECTS)
    for (const stream of [false, true]) {
      const got = await send(keys.paying, dialect, requestBody(dialect, stream), { stream });
      t.equal(got.status, 200, `${dialect} ${stream ? 'stream' : 'body'} succeeds`);
    }
  // Searches: two executed and one beyond max_uses (not a provider call), then one streamed in responses.
  await send(keys.paying, 'messages', {
    model: 'qwen3-8b',
    max_tokens: 300,
    tools: [{ ...SEARCH_TOOL, max_uses: 2 }],
    messages: [{ role: 'user', content: 'search: lisbon weather search: tokyo weather search: paris weather' }],
  });
  await send(
    keys.paying,
    'responses',
    { model: 'qwen3-8b', input: 'search: lisbon weather', tools: [{ type: 'web_search' }], stream: true },
    { stream: true },
  );
  // 400s: a body that is no JSON, and one without messages.
  await send(keys.paying, 'chat', '{"model": ');
  await send(keys.paying, 'messages', { model: 'qwen3-8b', max_tokens: 10 });
  // The Tiny tier: one request, then 429s.
  await send(keys.tiny, 'chat', requestBody('chat', false));
  await send(keys.tiny, 'chat', requestBody('chat', false));
  await send(keys.tiny, 'responses', requestBody('responses', true), { stream: true });
  // No credits: 402s.
  await send(keys.broke, 'chat', requestBody('chat', false));
  await send(keys.broke, 'messages', requestBody('messages', true), { stream: true });
  // A token count (no generation, no ledger row).
  const got = await send(
    keys.paying,
    'messages',
    { model: 'qwen3-8b', messages: [{ role: 'user', content: 'How many tokens is this?' }] },
    { path: '/v1/messages/count_tokens' },
  );
  t.equal(got.status, 200, 'the token count succeeds');
}

/** /metrics once every request sent is counted (each is counted at its exchange's end, just after its last byte). */
async function settledMetrics(): Promise<Sample[]> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const samples = await scrape(metricsUrl);
    if (sumOf(samples, 'gateway_requests_total') >= received.length) return samples;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the requests were not all counted');
}

const count = (status: number): number => received.filter((got) => got.status === status).length;

t.test('counters agree with the ledger', async (t) => {
  await workload(t);
  const samples = await settledMetrics();
  const rows = await store.db.selectFrom('usage').selectAll().execute();
  const statuses = [...new Set(received.map((got) => got.status))].sort();
  t.same(statuses, [200, 400, 402, 429], 'the workload got every kind of answer');

  t.test('requests by status are the statuses the clients received', async (t) => {
    t.equal(sumOf(samples, 'gateway_requests_total'), received.length);
    for (const status of statuses)
      t.equal(sumOf(samples, 'gateway_requests_total', { status: String(status) }), count(status), `status ${status}`);
  });

  t.test('input and output token sums equal the usage clients received and the ledger rows', async (t) => {
    t.equal(rows.length, count(200) - 1, 'one row per generation that succeeded (the token count has none)');
    t.ok(
      rows.every((row) => row.state === 'settled'),
      'every row settled',
    );
    const answered = received.flatMap((got) => (got.tokens === undefined ? [] : [got.tokens]));
    t.equal(answered.length, rows.length, 'every generation that succeeded told its usage');
    const inputOf = (tokens: LedgerTokens): number =>
      tokens.input_tokens + tokens.cache_read_tokens + tokens.cache_write_tokens;
    const clientInput = answered.reduce((total, tokens) => total + inputOf(tokens), 0);
    const clientOutput = answered.reduce((total, tokens) => total + tokens.output_tokens, 0);
    const ledgerInput = rows.reduce((total, row) => total + inputOf(row), 0);
    const ledgerOutput = rows.reduce((total, row) => total + row.output_tokens, 0);
    t.ok(clientInput > 0 && clientOutput > 0);
    const metricInput = sumOf(samples, 'gen_ai_client_token_usage_sum', { gen_ai_token_type: 'input' });
    const metricOutput = sumOf(samples, 'gen_ai_client_token_usage_sum', { gen_ai_token_type: 'output' });
    t.equal(metricInput, clientInput, 'input: the clients');
    t.equal(metricInput, ledgerInput, 'input: the ledger');
    t.equal(metricOutput, clientOutput, 'output: the clients');
    t.equal(metricOutput, ledgerOutput, 'output: the ledger');
    t.equal(
      sumOf(samples, 'gen_ai_client_token_usage_count', { gen_ai_token_type: 'output' }),
      rows.length,
      'one observation per answer',
    );
  });

  t.test('credits charged are the sum of the ledger costs', async (t) => {
    const cost = rows.reduce((total, row) => total + Number(row.cost_micros), 0);
    t.ok(cost > 0);
    t.equal(sumOf(samples, 'gateway_credits_charged_micros_total'), cost);
  });

  t.test('searches executed are the ledger searches', async (t) => {
    const searches = rows.reduce((total, row) => total + row.searches, 0);
    t.equal(searches, 3, 'two in messages, one in responses');
    t.equal(sumOf(samples, 'gateway_searches_total', { provider: 'local', outcome: 'ok' }), searches);
    t.equal(sumOf(samples, 'gateway_searches_total', { outcome: 'failed' }), 0);
    t.equal(sumOf(samples, 'gateway_search_duration_seconds_count', { provider: 'local' }), searches);
  });

  t.test('429s and 402s are counted as the clients received them', async (t) => {
    t.equal(count(429), 2);
    t.equal(sumOf(samples, 'gateway_rate_limit_rejections_total', { limit: 'requests' }), count(429));
    t.equal(sumOf(samples, 'gateway_rate_limit_rejections_total'), count(429));
    t.equal(count(402), 2);
    t.equal(sumOf(samples, 'gateway_insufficient_credits_total'), count(402));
  });

  t.test('the token count is counted, and every upstream call the sim received', async (t) => {
    t.equal(sumOf(samples, 'gateway_count_tokens_total', { outcome: 'ok' }), 1);
    t.equal(sumOf(samples, 'gateway_count_tokens_total', { outcome: 'failed' }), 0);
    // Each success is one upstream call, and each round of a search loop one more: the sim counted them.
    const calls = stack.sim.stats().requests;
    t.ok(calls > rows.length, 'the search loops called the upstream more than once');
    t.equal(sumOf(samples, 'gateway_upstream_requests_total', { outcome: '2xx' }), calls);
    t.equal(sumOf(samples, 'gateway_upstream_requests_total'), calls);
    t.equal(sumOf(samples, 'gateway_upstream_errors_total'), 0);
  });
});
