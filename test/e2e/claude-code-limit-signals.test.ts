// The real Claude Code CLI (2.1.332, ANTHROPIC_API_KEY as the README sets it up) against the
// organization's rate limit: the 429 carries `anthropic-ratelimit-unified-status: rejected` and the reset
// but no `-overage-disabled-reason` (plugins/ratelimit/unified-ratelimit-headers.ts; with
// `org_spend_cap_reached`, as a spend cap would send, Claude Code stops retrying at once), so it retries
// at retry-after and the run completes once the window reopens. The headers themselves:
// client-limit-signals.test.ts. The window reopens when the test moves the limiter's clock, after Claude Code met
// the 429 (regression: on the wall clock, a slow CLI start on a loaded machine found the window open already).
import t from 'tap';
import { startClaudeCode, type ClaudeCode } from '../helpers/claude-code.js';
import { TestClock } from '../helpers/clock.js';
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from '../helpers/recording-proxy.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let proxy: RecordingProxy;
let claude: ClaudeCode;
let key: string;
const clock = new TestClock();
t.before(async () => {
  stack = await startStack({
    now: clock.now,
    yaml: `limits:
  window_ms: 5000
  tiers:
    - { name: Start, from_spend: 0, requests_per_minute: 1, input_tokens_per_minute: 1000000, output_tokens_per_minute: 100000 }
plugins:
  - name: auth
  - name: ratelimit
`,
  });
  const store = await stack.store();
  await store.orgs.create('acme');
  key = (await store.keys.create('acme', 'claude-code')).key;
  proxy = await startRecordingProxy(stack.gateway.url);
  claude = startClaudeCode({
    baseUrl: proxy.url,
    apiKey: key,
    model: 'qwen3-8b',
    contextTokens: 32768,
    maxOutputTokens: 8000,
  });
});
t.teardown(async () => {
  claude.close();
  await proxy.close();
  await stack.close();
});

/** A generation request (not count_tokens). */
function isGeneration(exchange: RecordedExchange): boolean {
  return exchange.path.startsWith('/v1/messages') && !exchange.path.includes('count_tokens');
}

t.test(
  "Claude Code retries the organization's 429 (rejected, with the reset) and completes when the window reopens",
  async (t) => {
    // The window's one request, taken before Claude Code starts.
    const first = await fetch(`${stack.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'qwen3-8b', max_tokens: 16, messages: [{ role: 'user', content: 'echo: hi' }] }),
    });
    await first.arrayBuffer();
    t.equal(first.status, 200);
    const running = claude.run('echo: hi');
    // Claude Code met the limit: the window reopens, and its retry at retry-after is served.
    await proxy.recorded((exchange) => isGeneration(exchange) && exchange.status === 429);
    clock.advance(5000);
    const run = await running;
    t.equal(run.code, 0, 'claude exits 0');
    t.match(run.json, { is_error: false, result: 'hi' });
    const statuses = proxy
      .exchanges()
      .filter(isGeneration)
      .map((exchange) => exchange.status);
    t.equal(statuses[0], 429, "Claude Code's first request met the limit");
    t.equal(statuses.at(-1), 200, 'and a retry was served');
    const refused = proxy.exchanges().find((exchange) => exchange.status === 429);
    t.match(JSON.parse(refused?.response ?? '{}'), { type: 'error', error: { type: 'rate_limit_error' } });
  },
);
