// Each client's own limit signal, fed from the organization's real window and balance, beside the spec's
// svc-ratelimit-* headers (docs/wire.md, "Limit signals clients read"):
// - messages: Claude Code's anthropic-ratelimit-unified-* (what its 2.1.332 binary parses: status,
//   reset in Unix seconds, representative claim, overage-status, overage-utilization,
//   overage-surpassed-threshold; on the organization's 429, `rejected` without the claim);
// - responses: Codex's x-codex-* (codex-rs/codex-api/src/rate_limits.rs: primary used-percent, window
//   minutes, reset-at; credits has-credits, unlimited, balance);
// - and the organization's limit (429 rate_limit_error) kept apart from an overloaded upstream
//   (503 overloaded_error, the organization still `allowed`).
import t from 'tap';
import { readSse } from '../kit/sse-reader.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, forwardHeaders, tiersOf } from '../kit/stack-presets.js';

const REQUESTS_PER_MINUTE = 4;
const yaml = [
  forwardHeaders('x-sim-fault'),
  tiersOf({ name: 'Start', fromSpend: 0, requests: REQUESTS_PER_MINUTE, inputTokens: 100_000, outputTokens: 100_000 }),
  CHAINS.authRatelimitMeter,
].join('');

const stack = await stackForFile(t, { yaml });
const store = await stack.store();

let orgs = 0;
/** A new organization (its own window) with `credits` micro-credits, and a key. */
async function newOrg(micros = 12_500_000): Promise<string> {
  const org = await store.orgs.create(`signals-${++orgs}`);
  if (micros > 0) await store.orgs.addCredits(org.id, micros);
  return (await store.keys.create(org.id, 'tests')).key;
}

const messages = (key: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${stack.gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify({ model: 'qwen3-8b', max_tokens: 16, messages: [{ role: 'user', content: 'echo: hi' }] }),
  });

const responses = (key: string, stream = false, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${stack.gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ model: 'qwen3-8b', input: 'echo: hi', stream }),
  });

/** The window's reset as the spec's header gives it (ISO 8601), in the Unix seconds the clients read. */
const resetSeconds = (response: Response): string =>
  String(Math.ceil(Date.parse(response.headers.get('svc-ratelimit-requests-reset') ?? '') / 1000));

/** The anthropic-ratelimit-unified-* headers of a response, by their suffix. */
function unified(response: Response): Record<string, string> {
  const family: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name.startsWith('anthropic-ratelimit-unified-'))
      family[name.slice('anthropic-ratelimit-unified-'.length)] = value;
  });
  return family;
}

/** The x-codex-* headers of a response, by their suffix. */
function codex(response: Response): Record<string, string> {
  const family: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name.startsWith('x-codex-')) family[name.slice('x-codex-'.length)] = value;
  });
  return family;
}

t.test(
  'messages: a served request carries status allowed, the reset in Unix seconds and the overage claim',
  async (t) => {
    const response = await messages(await newOrg());
    t.equal(response.status, 200);
    await response.arrayBuffer();
    t.same(unified(response), {
      status: 'allowed',
      reset: resetSeconds(response),
      'representative-claim': 'overage',
      'overage-status': 'allowed',
      'overage-utilization': '0.25',
      'overage-reset': resetSeconds(response),
    });
    t.equal(response.headers.get('svc-ratelimit-requests-remaining'), '3', "the spec's headers stay");
  },
);

t.test(
  'messages: past 75% of the fullest counter the status is allowed_warning with the threshold passed (0.75, then 0.95); the 429 is rejected without the claim',
  async (t) => {
    const key = await newOrg();
    for (const _ of [1, 2]) await (await messages(key)).arrayBuffer();
    const third = await messages(key);
    await third.arrayBuffer();
    t.match(unified(third), {
      status: 'allowed_warning',
      'overage-status': 'allowed_warning',
      'overage-utilization': '0.75',
      'overage-surpassed-threshold': '0.75',
    });
    const fourth = await messages(key);
    await fourth.arrayBuffer();
    t.match(unified(fourth), {
      status: 'allowed_warning',
      'overage-utilization': '0.99',
      'overage-surpassed-threshold': '0.95',
    });
    const refused = await messages(key);
    t.equal(refused.status, 429);
    t.match(await refused.json(), { type: 'error', error: { type: 'rate_limit_error' } });
    t.same(unified(refused), {
      status: 'rejected',
      reset: resetSeconds(refused),
      'overage-utilization': '1',
      'overage-reset': resetSeconds(refused),
    });
    t.ok(Number(refused.headers.get('retry-after')) >= 1, 'retry-after, as the spec says');
    t.equal(refused.headers.get('x-should-retry'), null, 'the client may retry: the window reopens at the reset');
  },
);

t.test(
  "messages: an overloaded upstream is 503 overloaded_error and the organization's signal stays allowed, never the 429's rate_limit_error",
  async (t) => {
    const response = await messages(await newOrg(), { 'x-sim-fault': '503' });
    t.equal(response.status, 503);
    t.match(await response.json(), { type: 'error', error: { type: 'overloaded_error' } });
    t.equal(unified(response).status, 'allowed');
  },
);

t.test(
  'responses: x-codex-* give the used percent, the window in minutes, the reset in Unix seconds and the balance in credits',
  async (t) => {
    const key = await newOrg(12_500_000);
    for (const stream of [false, true]) {
      const response = await responses(key, stream);
      t.equal(response.status, 200);
      await response.arrayBuffer();
      t.same(codex(response), {
        'primary-used-percent': stream ? '50' : '25',
        'primary-window-minutes': '1',
        'primary-reset-at': resetSeconds(response),
        'credits-has-credits': 'true',
        'credits-unlimited': 'false',
        'credits-balance': '12.5',
      });
      t.same(unified(response), {}, 'no Claude Code headers on responses');
    }
  },
);

t.test(
  "responses: Codex's stream begins with codex.rate_limits, the same figures as the headers; no other client gets it",
  async (t) => {
    const key = await newOrg(12_500_000);
    // Codex as it names itself (test/unit/proxy/routing/wire-negotiation.test.ts records its headers).
    const fromCodex = await responses(key, true, { originator: 'codex_exec', 'user-agent': 'codex_exec/0.171.0' });
    const frames = readSse(await fromCodex.text());
    t.same(
      frames.slice(0, 2).map((frame) => frame.event),
      ['codex.rate_limits', 'response.created'],
    );
    const headers = codex(fromCodex);
    t.same(JSON.parse(frames[0]!.data), {
      type: 'codex.rate_limits',
      rate_limits: {
        allowed: true,
        limit_reached: false,
        primary: {
          used_percent: Number(headers['primary-used-percent']),
          window_minutes: 1,
          reset_at: Number(headers['primary-reset-at']),
        },
        secondary: null,
      },
      credits: { has_credits: true, unlimited: false, balance: '12.5' },
    });
    const others: Array<Record<string, string>> = [{}, { 'user-agent': 'OpenAI/JS 7.59.0', 'x-stainless-lang': 'js' }];
    for (const client of others) {
      const text = await (await responses(key, true, client)).text();
      t.notOk(text.includes('codex.rate_limits'), `not to ${JSON.stringify(client)}`);
    }
  },
);

t.test('responses: the 429 of the organization shows 100% used', async (t) => {
  const key = await newOrg();
  for (const _ of [1, 2, 3, 4]) await (await responses(key)).arrayBuffer();
  const refused = await responses(key);
  t.equal(refused.status, 429);
  await refused.arrayBuffer();
  t.match(codex(refused), { 'primary-used-percent': '100', 'primary-reset-at': resetSeconds(refused) });
});

t.test(
  'responses: an organization without credits shows has-credits false and a zero balance (and gets 402)',
  async (t) => {
    const response = await responses(await newOrg(0));
    t.equal(response.status, 402);
    await response.arrayBuffer();
    t.match(codex(response), { 'credits-has-credits': 'false', 'credits-unlimited': 'false', 'credits-balance': '0' });
  },
);

t.test('chat completions carry neither family, only the spec headers', async (t) => {
  const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await newOrg()}` },
    body: JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] }),
  });
  await response.arrayBuffer();
  t.same(unified(response), {});
  t.same(codex(response), {});
  t.equal(response.headers.get('svc-ratelimit-requests-limit'), String(REQUESTS_PER_MINUTE));
});
