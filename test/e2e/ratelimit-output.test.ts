// Output-token blocking (spec §8.3): output tokens are known only after a request, so the request that
// crosses the limit completes; every later request of the window gets 429 with retry-after, the
// organization is notified once, and requests resume in the next window (2 s here, on the test's clock).
import t, { type Test } from 'tap';
import type { Store } from '../../store/store.js';
import { TestClock } from '../helpers/clock.js';
import { startStack, type Stack } from '../helpers/stack.js';

const OUTPUT_LIMIT = 30;
const yaml = `upstream:
  forward_headers: [x-sim-output-tokens]
limits:
  window_ms: 2000
  tiers:
    - { name: Start, from_spend: 0, requests_per_minute: 100, input_tokens_per_minute: 100000, output_tokens_per_minute: ${OUTPUT_LIMIT} }
plugins:
  - name: auth
  - name: ratelimit
`;

let stack: Stack;
let store: Store;
const clock = new TestClock();
t.before(async () => {
  stack = await startStack({ yaml, now: clock.now });
  store = await stack.store();
});
t.teardown(async () => {
  await stack.close();
});

let orgs = 0;
async function newOrg(): Promise<{ orgId: string; key: string }> {
  const org = await store.orgs.create(`org-${++orgs}`);
  return { orgId: org.id, key: (await store.keys.create(org.id, 'tests')).key };
}

const tell = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'Tell me about limits.' }] };
const echo = { model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] };
const chat = (key: string, body: unknown, outputTokens?: number): Promise<Response> =>
  fetch(`${stack.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      ...(outputTokens === undefined ? {} : { 'x-sim-output-tokens': String(outputTokens) }),
    },
    body: JSON.stringify(body),
  });

/** The notices the default notifier (the log) wrote for an organization. */
const notices = (orgId: string): Array<Record<string, unknown>> =>
  stack.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => String(entry.msg).startsWith('output tokens block the organization') && entry.org === orgId);

async function expectBlocked(t: Test, key: string): Promise<number> {
  const before = stack.sim.requests().length;
  const response = await chat(key, echo);
  t.equal(response.status, 429);
  t.equal(stack.sim.requests().length, before, 'the upstream was not called');
  t.equal(response.headers.get('svc-ratelimit-output-tokens-remaining'), '0');
  const retryMs = Number(response.headers.get('retry-after-ms'));
  t.ok(retryMs >= 1 && retryMs <= 2000, `retry-after-ms ${retryMs}`);
  t.equal(response.headers.get('retry-after'), String(Math.ceil(retryMs / 1000)));
  t.match(await response.json(), {
    error: {
      type: 'insufficient_quota',
      code: 'insufficient_quota',
      message: new RegExp(
        `^Rate limit reached for output tokens per 2 s \\(limit ${OUTPUT_LIMIT}, tier Start\\): \\d+ used in this window; retry after \\d s\\.$`,
      ),
    },
  });
  return retryMs;
}

t.test(
  'output-token blocking: the crossing request completes, later ones get 429 until the window resets, one notice',
  async (t) => {
    const { orgId, key } = await newOrg();
    const crossing = await chat(key, tell, 40);
    t.equal(crossing.status, 200, 'the request that crosses the limit completes');
    const body = (await crossing.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
      usage: { completion_tokens: number };
    };
    t.equal(body.usage.completion_tokens, 40, 'with its full output');
    t.ok(body.choices[0]!.message.content.length > 0);
    t.equal(crossing.headers.get('svc-ratelimit-output-tokens-remaining'), '0');

    await expectBlocked(t, key);
    const retryMs = await expectBlocked(t, key);
    t.equal(notices(orgId).length, 1, 'the organization was notified once');
    t.match(notices(orgId)[0], { limit: OUTPUT_LIMIT, used: 40 });

    clock.advance(retryMs);
    const resumed = await chat(key, echo);
    t.equal(resumed.status, 200, 'requests resume in the next window');
    t.equal(notices(orgId).length, 1, 'no new notice');
  },
);

t.test('output-token blocking: a streamed crossing request completes to its end, the next one gets 429', async (t) => {
  const { orgId, key } = await newOrg();
  const crossing = await chat(key, { ...tell, stream: true, stream_options: { include_usage: true } }, 40);
  t.equal(crossing.status, 200);
  const text = await crossing.text();
  t.match(
    text,
    /event: message_stop\ndata: .*"finish_reason":"stop".*"completion_tokens":40/,
    'the stream ends normally, with its full output',
  );
  await expectBlocked(t, key);
  t.equal(notices(orgId).length, 1);
});

t.test('output tokens below the limit block nothing', async (t) => {
  const { orgId, key } = await newOrg();
  for (let i = 0; i < 3; i++) t.equal((await chat(key, tell, 5)).status, 200);
  t.equal(notices(orgId).length, 0);
});
