// Caps per key and per member (docs/billing.md, "Caps"): spend caps per day, week and month reserved
// against like the balance, concurrency caps, and rate caps per minute, on every route that spends (the
// three dialects over HTTP, streamed or not, and responses over a WebSocket); a 429 in the caller's
// dialect that names the cap, `retry-after` to its reset, and the organization's tier headers unchanged.
import t from 'tap';
import WebSocket from 'ws';
import type { DialectName } from '../../dialects/registry.js';
import type { Caps } from '../../store/cap-rules.js';
import { SYSTEM_ACTOR } from '../../store/audit-log.js';
import { DIALECTS, PATHS, requestBody } from '../helpers/metered-answers.js';
import { scrape, sumOf } from '../helpers/prometheus-text.js';
import { stackForFile } from '../kit/file-stack.js';
import { readSse } from '../kit/sse-reader.js';
import { CHAINS, forwardHeaders, tiersOf } from '../kit/stack-presets.js';

// Output at a credit per thousand tokens, input free: a request with max_tokens 10 holds 10,000
// micro-credits, and the sim's answer to a long question is cut at max_tokens, so it costs its hold.
const MAX_TOKENS = 10;
const HOLD = 10_000;
const QUESTION = 'Tell me about limits.';
const TIER_REQUESTS = 1000;

const stack = await stackForFile(t, {
  yaml: [
    forwardHeaders('x-sim-itl-ms'),
    'pricing: { input_per_mtok: 0, output_per_mtok: 1000 }\n',
    tiersOf({ name: 'Start', fromSpend: 0, requests: TIER_REQUESTS }),
    CHAINS.authRatelimitMeter,
  ].join(''),
  env: { GATEWAY_METRICS_PORT: '0' },
});
const store = await stack.store();
let orgs = 0;

/** A new organization with credits to spare, a member, and a key of that member (and `caps` on the key). */
async function capped(keyCaps: Caps = {}, memberCaps: Caps = {}) {
  const org = await store.orgs.create(`caps-org-${++orgs}`);
  await store.orgs.addCredits(org.id, 100_000_000);
  const email = `member${orgs}@example.com`;
  await store.orgs.addMember(org.id, { email, role: 'member' });
  const actor = { who: email, address: null };
  const created = await store.keys.create(org.id, 'laptop', actor);
  await store.caps.set(org.id, { kind: 'key', keyId: created.record.id }, keyCaps, SYSTEM_ACTOR);
  await store.caps.set(org.id, { kind: 'member', email }, memberCaps, SYSTEM_ACTOR);
  const anotherKey = async () => (await store.keys.create(org.id, 'desktop', actor)).key;
  return { orgId: org.id, keyId: created.record.id, key: created.key, email, anotherKey };
}

async function call(key: string, dialect: DialectName = 'chat', stream = false, headers: Record<string, string> = {}) {
  const response = await fetch(stack.gateway.url + PATHS[dialect], {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(requestBody(dialect, stream, QUESTION, MAX_TOKENS)),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

/** The message of an error body in any dialect (chat and responses: error.message; messages: error.message too). */
const messageOf = (text: string): string => (JSON.parse(text) as { error: { message: string } }).error.message;

const keySpend = async (keyId: string): Promise<number> => {
  const rows = await store.db
    .selectFrom('key_spend_daily')
    .select('spent_micros')
    .where('key_id', '=', keyId)
    .execute();
  return rows.reduce((sum, row) => sum + Number(row.spent_micros), 0);
};

t.test('a day spend cap admits requests while the spend and the hold fit, then 429 naming the cap', async (t) => {
  const { key, keyId } = await capped({ dayMicros: 2 * HOLD });
  t.equal((await call(key)).status, 200);
  t.equal((await call(key)).status, 200);
  const refused = await call(key);
  t.equal(refused.status, 429);
  t.match(
    messageOf(refused.text),
    /Spend cap reached: the key 'laptop' may spend 0\.02 credits a day \(day_micros 20000\)/,
  );
  const tomorrow = Math.ceil(Date.now() / 86_400_000) * 86_400_000;
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.ok(
    retryAfter >= 1 && retryAfter <= Math.ceil((tomorrow - Date.now()) / 1000) + 1,
    'retry-after counts to the next UTC day',
  );
  t.equal(await keySpend(keyId), 2 * HOLD, 'the key spent exactly its cap');
});

t.test('every route that spends is capped: three dialects, streamed or not, and a WebSocket', async (t) => {
  for (const dialect of DIALECTS)
    for (const stream of [false, true]) {
      const { key } = await capped({ dayMicros: 0 });
      const refused = await call(key, dialect, stream);
      t.equal(refused.status, 429, `${dialect}, stream ${stream}`);
      t.match(messageOf(refused.text), /day_micros 0/, `${dialect}, stream ${stream}: the message names the cap`);
      t.ok(refused.headers.get('retry-after'), `${dialect}, stream ${stream}: retry-after`);
    }
  const { key } = await capped({ dayMicros: 0 });
  const ws = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const reply = new Promise<Record<string, unknown>>((resolve) =>
    ws.once('message', (data) => resolve(JSON.parse(String(data)) as Record<string, unknown>)),
  );
  ws.send(
    JSON.stringify({ type: 'response.create', model: 'qwen3-8b', input: QUESTION, max_output_tokens: MAX_TOKENS }),
  );
  const error = await reply;
  ws.close();
  t.match(error, { type: 'error', status: 429 }, 'the WebSocket gets an error message with the status');
  t.match(JSON.stringify(error), /day_micros 0/);
});

t.test("a cap's 429 carries the organization's tier headers, not the cap's", async (t) => {
  const { key } = await capped({ dayMicros: 0 });
  const refused = await call(key);
  t.equal(refused.status, 429);
  t.equal(refused.headers.get('svc-ratelimit-requests-limit'), String(TIER_REQUESTS));
});

t.test("a member's caps count every key the member made", async (t) => {
  const { key, anotherKey } = await capped({}, { dayMicros: HOLD });
  t.equal((await call(key)).status, 200);
  const refused = await call(await anotherKey());
  t.equal(refused.status, 429);
  t.match(messageOf(refused.text), /the member member\d+@example\.com may spend 0\.01 credits a day/);
});

t.test('a concurrency cap refuses a request while the cap is in flight, and admits once one ends', async (t) => {
  const { key } = await capped({ concurrentRequests: 1 });
  // A slow stream: 100 ms between tokens keeps the first request in flight while the second is sent.
  const first = await fetch(stack.gateway.url + PATHS.chat, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-sim-itl-ms': '100' },
    body: JSON.stringify(requestBody('chat', true, QUESTION, MAX_TOKENS)),
  });
  t.equal(first.status, 200, 'the first is in flight');
  const second = await call(key);
  t.equal(second.status, 429);
  t.match(
    messageOf(second.text),
    /Concurrency cap reached: the key 'laptop' may have 1 requests in flight \(concurrent_requests\)/,
  );
  t.equal(second.headers.get('retry-after'), '1');
  t.match(readSse(await first.text()).at(-1), { data: /"finish_reason":"length"/ }, 'the first ran to its end');
  t.equal((await call(key)).status, 200, 'served once the first ended');
});

t.test('a requests-per-minute cap of a key: the request past it gets 429 naming requests_per_minute', async (t) => {
  const { key } = await capped({ requestsPerMinute: 2 });
  t.equal((await call(key)).status, 200);
  t.equal((await call(key)).status, 200);
  const refused = await call(key);
  t.equal(refused.status, 429);
  t.match(messageOf(refused.text), /the key 'laptop' is capped at 2 \(requests_per_minute\)/);
  t.ok(Number(refused.headers.get('retry-after')) >= 1);
});

t.test('an input-tokens cap smaller than the request refuses it, and gives its estimate back everywhere', async (t) => {
  const { key } = await capped({ inputTokensPerMinute: 3 });
  const refused = await call(key);
  t.equal(refused.status, 429);
  t.match(
    messageOf(refused.text),
    /capped at 3 \(input_tokens_per_minute\): this request's estimated \d+ input tokens exceed the cap itself/,
  );
});

t.test('an output-tokens cap: once used up, the next request of the window gets 429', async (t) => {
  const { key } = await capped({ outputTokensPerMinute: MAX_TOKENS });
  t.equal((await call(key)).status, 200, 'the request that uses the cap up completes');
  const refused = await call(key);
  t.equal(refused.status, 429);
  t.match(messageOf(refused.text), /capped at 10 \(output_tokens_per_minute\): 10 used in this window/);
});

t.test('GET /v1/me/caps: the key and its member read their caps and their use with the API key', async (t) => {
  const { key, orgId, email } = await capped({ dayMicros: 5 * HOLD, requestsPerMinute: 7 }, { monthMicros: 50 * HOLD });
  t.equal((await call(key)).status, 200);
  const response = await fetch(`${stack.gateway.url}/v1/me/caps`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(response.status, 200);
  t.equal(response.headers.get('cache-control'), 'no-store');
  const body = (await response.json()) as Record<string, never>;
  t.match(body, {
    object: 'caller_caps',
    organization: orgId,
    key: {
      name: 'laptop',
      caps: { day_micros: 5 * HOLD, requests_per_minute: 7 },
      use: { day_micros: HOLD, week_micros: HOLD, month_micros: HOLD, concurrent_requests: 0 },
    },
    member: { email, caps: { month_micros: 50 * HOLD }, use: { month_micros: HOLD } },
  });
  t.match(body, { key: { use: { day_resets_at: /T00:00:00\.000Z$/ } } });
  const anonymous = await fetch(`${stack.gateway.url}/v1/me/caps`);
  t.equal(anonymous.status, 401, 'the endpoint needs a key');
});

t.test('cap refusals are counted by the cap and whose it is', async (t) => {
  const rejections = async (cap: string, scope: string): Promise<number> =>
    sumOf(await scrape(stack.gateway.metricsUrl!), 'gateway_cap_rejections_total', { cap, scope });
  const before = {
    member: await rejections('day_micros', 'member'),
    key: await rejections('requests_per_minute', 'key'),
  };
  const member = await capped({}, { dayMicros: 0 });
  t.equal((await call(member.key)).status, 429);
  const key = await capped({ requestsPerMinute: 0 });
  t.equal((await call(key.key)).status, 429);
  t.equal(await rejections('day_micros', 'member'), before.member + 1);
  t.equal(await rejections('requests_per_minute', 'key'), before.key + 1);
});
