// The ratelimit plugin in one gateway (in-process counters): tiers by lifetime spend (spec §8.1), the
// nine headers (§8.2), 429 per dialect with retry-after (§7), input-token limits and their
// reconciliation, output tokens charged when the client goes away, count_tokens exempt.
import t, { type Test } from 'tap';
import { estimateInputTokens } from '../../limits/estimate.js';
import type { ChatRequest } from '../../core/canonical.js';
import { orgWithKey } from '../helpers/org-key.js';
import { requestLine } from '../helpers/stack.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, forwardHeaders, tiersOf } from '../kit/stack-presets.js';

const LIMITS = { requests: 3, input: 100_000, output: 100_000 };
const yaml = [
  forwardHeaders('x-sim-output-tokens', 'x-sim-itl-ms'),
  tiersOf(
    { name: 'Start', fromSpend: 0, requests: LIMITS.requests, inputTokens: LIMITS.input, outputTokens: LIMITS.output },
    { name: 'Build', fromSpend: 100, requests: 7, inputTokens: 200_000, outputTokens: 150_000 },
    { name: 'Tight', fromSpend: 1000, requests: 100, inputTokens: 400, outputTokens: 100_000 },
  ),
  CHAINS.authRatelimit,
].join('');

const stack = await stackForFile(t, { yaml });
const store = await stack.store();

let orgs = 0;
/** A new organization (so fresh counters) with `spent` credits of lifetime spend, and its key. */
async function newKey(spent = 0): Promise<string> {
  return (await orgWithKey(store, `org-${++orgs}`, { spentCredits: spent })).key;
}

const hello = { model: 'qwen3-8b', messages: [{ role: 'user' as const, content: 'echo: hi' }] };
/** Not an echo: the sim writes x-sim-output-tokens tokens. */
const tell = { model: 'qwen3-8b', messages: [{ role: 'user' as const, content: 'Tell me about limits.' }] };
const call = (key: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(stack.gateway.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const chat = (key: string, body: unknown = hello, headers: Record<string, string> = {}): Promise<Response> =>
  call(key, '/v1/chat/completions', body, headers);
const countTokens = (key: string): Promise<Response> => call(key, '/v1/messages/count_tokens', hello);

const KINDS = ['requests', 'input-tokens', 'output-tokens'] as const;
type Kind = (typeof KINDS)[number];
const header = (response: Response, kind: Kind, field: 'limit' | 'remaining' | 'reset'): string | null =>
  response.headers.get(`svc-ratelimit-${kind}-${field}`);
const remaining = (response: Response, kind: Kind): number => Number(header(response, kind, 'remaining'));

/** All nine headers there; limits as given; resets ISO 8601 timestamps within the 60 s window. */
function checkHeaders(t: Test, response: Response, limits: Record<Kind, number>): void {
  for (const kind of KINDS) {
    t.equal(header(response, kind, 'limit'), String(limits[kind]), `${kind} limit`);
    t.match(header(response, kind, 'remaining'), /^\d+$/, `${kind} remaining`);
    const reset = header(response, kind, 'reset') ?? '';
    t.match(reset, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, `${kind} reset is ISO 8601`);
    // After the response's Date (a second Node's server may have cached for a while under load), and no later than
    // the window's 60 s from now, when the response has arrived.
    const resetAt = Date.parse(reset);
    t.ok(
      resetAt > Date.parse(response.headers.get('date') ?? '') && resetAt <= Date.now() + 60_000,
      `${kind} reset within the window (${reset}, the response's date ${response.headers.get('date')})`,
    );
  }
}
const startLimits = { requests: LIMITS.requests, 'input-tokens': LIMITS.input, 'output-tokens': LIMITS.output };

t.test(
  'each tier from lifetime spend: an organization that spent $150 gets the Build limits, one with $0 the Start limits',
  async (t) => {
    checkHeaders(t, await chat(await newKey(150)), { requests: 7, 'input-tokens': 200_000, 'output-tokens': 150_000 });
    checkHeaders(t, await chat(await newKey(0)), startLimits);
  },
);

t.test(
  'the nine headers are on a 200, non-streamed: after the call they count its real prompt and completion tokens',
  async (t) => {
    const key = await newKey();
    const response = await chat(key);
    t.equal(response.status, 200);
    checkHeaders(t, response, startLimits);
    const { usage } = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    t.equal(remaining(response, 'requests'), LIMITS.requests - 1);
    t.equal(remaining(response, 'input-tokens'), LIMITS.input - usage.prompt_tokens);
    t.equal(remaining(response, 'output-tokens'), LIMITS.output - usage.completion_tokens);
  },
);

t.test('the nine headers are on a streamed 200, sent at the start of the stream', async (t) => {
  const key = await newKey();
  const response = await chat(key, { ...hello, stream: true });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /text\/event-stream/);
  checkHeaders(t, response, startLimits);
  t.equal(remaining(response, 'requests'), LIMITS.requests - 1);
  t.equal(
    remaining(response, 'input-tokens'),
    LIMITS.input - estimateInputTokens(hello as ChatRequest),
    'the estimate, consumed before the call',
  );
  t.equal(remaining(response, 'output-tokens'), LIMITS.output, 'no output yet');
  await response.text();
});

t.test('a 400 carries the nine headers, and counts as a request (a call is a call)', async (t) => {
  const key = await newKey();
  const response = await chat(key, { model: 'qwen3-8b', messages: [{ role: 'nobody', content: 'x' }] });
  t.equal(response.status, 400);
  checkHeaders(t, response, startLimits);
  t.equal(remaining(response, 'requests'), LIMITS.requests - 1);
  t.equal(remaining(response, 'input-tokens'), LIMITS.input, 'no input tokens: the body never reached the model');
  t.equal(remaining(await chat(key), 'requests'), LIMITS.requests - 2);
});

t.test('count_tokens and /v1/models carry the nine headers and consume nothing', async (t) => {
  const key = await newKey();
  for (let i = 0; i < 5; i++) {
    for (const response of [await countTokens(key), await call(key, '/v1/models')]) {
      t.equal(response.status, 200);
      checkHeaders(t, response, startLimits);
      t.same(
        KINDS.map((kind) => remaining(response, kind)),
        [LIMITS.requests, LIMITS.input, LIMITS.output],
      );
    }
  }
  t.equal((await call(key, '/health')).headers.get('svc-ratelimit-requests-limit'), null, '/health has none');
});

/** Uses up the requests of the key's window: LIMITS.requests calls that pass. */
async function exhaustRequests(t: Test, key: string): Promise<void> {
  for (let i = 0; i < LIMITS.requests; i++) t.equal((await chat(key)).status, 200, `request ${i + 1} passes`);
}

function checkRetryAfter(t: Test, response: Response): void {
  const seconds = Number(response.headers.get('retry-after'));
  const ms = Number(response.headers.get('retry-after-ms'));
  t.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `retry-after ${seconds} s`);
  t.ok(Number.isInteger(ms) && ms >= 1 && ms <= 60_000, `retry-after-ms ${ms}`);
  t.equal(seconds, Math.ceil(ms / 1000), 'the same wait, rounded up to seconds');
}

t.test(
  'requests limit: the call after the limit gets 429 insufficient_quota in the chat dialect, with retry-after, naming the limit',
  async (t) => {
    const key = await newKey();
    await exhaustRequests(t, key);
    const response = await chat(key);
    t.equal(response.status, 429);
    checkRetryAfter(t, response);
    checkHeaders(t, response, startLimits);
    t.equal(remaining(response, 'requests'), 0);
    t.match(await response.json(), {
      error: {
        type: 'insufficient_quota',
        code: 'insufficient_quota',
        param: null,
        message: /^Rate limit reached for requests per minute \(limit 3, tier Start\); retry after \d+ s\.$/,
      },
    });
    t.equal(
      (await call(key, '/v1/responses', { model: 'qwen3-8b', input: 'echo: hi' })).status,
      429,
      'the responses endpoint too',
    );
  },
);

t.test(
  'requests limit: the call after the limit gets 429 rate_limit_error in the message dialect, with retry-after',
  async (t) => {
    const key = await newKey();
    await exhaustRequests(t, key);
    const before = stack.sim.requests().length;
    const response = await call(key, '/v1/messages', { ...hello, max_tokens: 10 });
    t.equal(response.status, 429);
    checkRetryAfter(t, response);
    checkHeaders(t, response, startLimits);
    t.match(await response.json(), {
      type: 'error',
      error: { type: 'rate_limit_error', message: /requests per minute \(limit 3, tier Start\)/ },
    });
    t.equal(stack.sim.requests().length, before, 'the upstream was not called');
  },
);

t.test('count_tokens is exempt: never 429, even when the requests of the window are used up', async (t) => {
  const key = await newKey();
  await exhaustRequests(t, key);
  t.equal((await chat(key)).status, 429);
  for (let i = 0; i < 5; i++) {
    const response = await countTokens(key);
    t.equal(response.status, 200);
    t.equal(remaining(response, 'requests'), 0, 'it shows the state');
    t.equal(response.headers.get('retry-after'), null);
  }
  t.equal((await call(key, '/v1/models')).status, 200, '/v1/models too');
});

const big = {
  model: 'qwen3-8b',
  messages: [{ role: 'user' as const, content: `echo: ${'lorem ipsum dolor '.repeat(50)}` }],
};

t.test('input-token limit: a request whose estimate does not fit gets 429 before the upstream is called', async (t) => {
  const key = await newKey(1000); // tier Tight: 400 input tokens per minute
  const estimate = estimateInputTokens(big as ChatRequest);
  t.ok(estimate <= 400 && estimate > 200, `one big request fits (estimate ${estimate}), two do not`);
  const first = await chat(key, big);
  t.equal(first.status, 200);
  const { usage } = (await first.json()) as { usage: { prompt_tokens: number } };
  const before = stack.sim.requests().length;
  const second = await chat(key, big);
  t.equal(second.status, 429);
  t.equal(stack.sim.requests().length, before, 'the upstream was not called');
  checkRetryAfter(t, second);
  t.match(await second.json(), {
    error: {
      code: 'insufficient_quota',
      message: new RegExp(
        `input tokens per minute \\(limit 400, tier Tight\\): this request needs about ${estimate} and ${400 - usage.prompt_tokens} are left`,
      ),
    },
  });
  t.equal(remaining(second, 'input-tokens'), 400 - usage.prompt_tokens, 'the refused estimate was given back');
  t.equal((await chat(key)).status, 200, 'a small request still fits');
});

t.test('input-token limit: a request larger than the limit itself is refused with x-should-retry: false', async (t) => {
  const key = await newKey(1000);
  const huge = { ...big, messages: [{ role: 'user', content: 'x'.repeat(3000) }] };
  const response = await chat(key, huge);
  t.equal(response.status, 429);
  t.equal(response.headers.get('x-should-retry'), 'false');
  t.ok(response.headers.get('retry-after'));
  t.match(await response.json(), { error: { message: /exceed the limit itself/ } });
  t.equal(remaining(response, 'input-tokens'), 400);
});

t.test(
  "input tokens are reconciled with the upstream's prompt_tokens: the next request sees the real count, not the estimate",
  async (t) => {
    const key = await newKey();
    const estimate = estimateInputTokens(big as ChatRequest);
    const first = await chat(key, big);
    const { usage } = (await first.json()) as { usage: { prompt_tokens: number } };
    t.not(
      usage.prompt_tokens,
      estimate,
      `the estimate (${estimate}) differs from the real count (${usage.prompt_tokens})`,
    );
    const next = await chat(key, { ...big, stream: true });
    t.equal(
      remaining(next, 'input-tokens'),
      LIMITS.input - usage.prompt_tokens - estimate,
      'the first at its real count, the second at its estimate so far',
    );
    await next.text();
    const after = await countTokens(key);
    t.equal(remaining(after, 'input-tokens'), LIMITS.input - 2 * usage.prompt_tokens, 'both at their real count');
  },
);

t.test('output tokens are charged with completion_tokens, never max_tokens', async (t) => {
  const key = await newKey();
  const response = await chat(key, { ...tell, max_tokens: 5000 }, { 'x-sim-output-tokens': '12' });
  const { usage } = (await response.json()) as { usage: { completion_tokens: number } };
  t.equal(usage.completion_tokens, 12);
  t.equal(remaining(response, 'output-tokens'), LIMITS.output - 12);
});

t.test('output tokens are charged when the client goes away mid-stream (what was produced)', async (t) => {
  const key = await newKey();
  const response = await chat(key, { ...tell, stream: true }, { 'x-sim-output-tokens': '400', 'x-sim-itl-ms': '5' });
  const reader = response.body!.getReader();
  for (let i = 0; i < 10; i++) await reader.read();
  await reader.cancel();
  await requestLine(stack, response.headers.get('x-request-id'));
  const left = remaining(await countTokens(key), 'output-tokens');
  t.ok(
    left < LIMITS.output && left > LIMITS.output - 400,
    `charged ${LIMITS.output - left} of the 400 tokens the full answer would have had`,
  );
});
