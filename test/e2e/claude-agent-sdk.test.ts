// The Claude Agent SDK (0.3.332) against the gateway on its defaults and the sim, set up as the README
// says: `query()` with ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, the model variables and
// CLAUDE_CODE_MAX_OUTPUT_TOKENS (the SDK's own default, 32000, is over the gateway's 8000 unless the
// operator sets `dialects.messages.max_tokens_over_limit: clamp`, tested too). One query per scenario:
// a plain answer and its usage, a streamed one (includePartialMessages), a round trip through an
// in-process MCP tool, a bad key. The prompts drive the sim's rules (sim/README.md).
import t, { type Test } from 'tap';
import { createSdkMcpServer, tool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import { startAgentSdk, type AgentQuery } from '../helpers/claude-agent-sdk.js';
import { ledgerRowsOfKey } from '../helpers/metered-answers.js';
import { startStack } from '../helpers/stack.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS } from '../kit/stack-presets.js';

const MODEL = 'qwen3-8b';
/** The README's setting: the gateway's dialects.messages.max_tokens. */
const MAX_OUTPUT = { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8000' };

// Six queries, each starting the SDK's native Claude Code (seconds apiece): room on a busy machine.
t.setTimeout(4 * 60_000);

const stack = await stackForFile(t, { yaml: CHAINS.authMeter });
const store = await stack.store();
await store.orgs.create('acme');
await store.orgs.addCredits('acme', 100_000_000);
const sdk = startAgentSdk({ baseUrl: stack.gateway.url, model: MODEL });
t.teardown(() => sdk.close());

/** A fresh key: its ledger rows are the query's. */
async function newKey(): Promise<{ key: string; id: string }> {
  const created = await (await stack.store()).keys.create('acme', 'agent-sdk');
  return { key: created.key, id: created.record.id };
}

function succeeded(t: Test, run: AgentQuery): void {
  t.equal(run.thrown, undefined, 'nothing thrown');
  t.match(run.result, { type: 'result', subtype: 'success', is_error: false });
}

// One query serves the plain answer and its usage.
let plain: Promise<{ run: AgentQuery; keyId: string }> | undefined;
const plainQuery = (): Promise<{ run: AgentQuery; keyId: string }> =>
  (plain ??= newKey().then(async ({ key, id }) => ({
    run: await sdk.query('echo: hello from the agent sdk', { apiKey: key, env: MAX_OUTPUT }),
    keyId: id,
  })));

t.test('query() answers a plain prompt with CLAUDE_CODE_MAX_OUTPUT_TOKENS set', async (t) => {
  const { run } = await plainQuery();
  succeeded(t, run);
  t.match(run.result, { result: 'hello from the agent sdk', stop_reason: 'end_turn' });
});

t.test("the usage query() reports is the gateway's ledger", async (t) => {
  const { run, keyId } = await plainQuery();
  const rows = await ledgerRowsOfKey(store.db, keyId);
  t.equal(rows.length, 1, 'one model call, one row');
  t.match(run.result?.usage, {
    input_tokens: rows[0]!.input_tokens,
    output_tokens: rows[0]!.output_tokens,
    cache_read_input_tokens: rows[0]!.cache_read_tokens,
    cache_creation_input_tokens: rows[0]!.cache_write_tokens,
  });
  t.equal(rows[0]!.state, 'settled');
});

t.test('includePartialMessages: the answer arrives as text deltas of the stream', async (t) => {
  const { key } = await newKey();
  const run = await sdk.query('echo: streamed to the agent sdk', {
    apiKey: key,
    env: MAX_OUTPUT,
    options: { includePartialMessages: true },
  });
  succeeded(t, run);
  const deltas = run.messages.flatMap((message: SDKMessage) =>
    message.type === 'stream_event' &&
    message.event.type === 'content_block_delta' &&
    message.event.delta.type === 'text_delta'
      ? [message.event.delta.text]
      : [],
  );
  t.ok(deltas.length > 1, `${deltas.length} deltas`);
  t.equal(deltas.join(''), 'streamed to the agent sdk');
  t.match(run.result, { result: 'streamed to the agent sdk' });
});

t.test('a tool round trip: the model calls an in-process MCP tool and answers with its result', async (t) => {
  const { key } = await newKey();
  const calls: Array<{ a: number; b: number }> = [];
  const add = tool(
    'add',
    'Adds two numbers',
    { a: z.number(), b: z.number() },
    ({ a, b }) => {
      calls.push({ a, b });
      return Promise.resolve({ content: [{ type: 'text' as const, text: `sum=${a + b}` }] });
    },
    // Loaded with the prompt, not behind ToolSearch: the sim calls only the tools it is given.
    { alwaysLoad: true },
  );
  const run = await sdk.query('mcp__calc__add a=2 b=3', {
    apiKey: key,
    env: MAX_OUTPUT,
    options: {
      mcpServers: { calc: createSdkMcpServer({ name: 'calc', tools: [add] }) },
      allowedTools: ['mcp__calc__add'],
    },
  });
  succeeded(t, run);
  t.same(calls, [{ a: 2, b: 3 }], 'the tool ran once with the arguments the model wrote');
  t.match(run.result, { result: 'Tool results: sum=5', num_turns: 2 });
});

t.test('a bad key: the result is an error that says the key is invalid', async (t) => {
  // Claude Code retries a 401 ten times with backoff (minutes) before it gives up; one try is enough here.
  const run = await sdk.query('echo: never answered', {
    apiKey: 'sk-svc-not-a-key',
    env: { ...MAX_OUTPUT, CLAUDE_CODE_MAX_RETRIES: '0' },
  });
  t.match(run.result, { type: 'result', is_error: true });
  t.match(String(run.thrown), /Invalid API key/, 'query() throws with the error result');
  t.ok(await stack.logged((entry) => entry.msg === 'request' && entry.status === 401), 'the gateway refused it');
});

t.test(
  "without CLAUDE_CODE_MAX_OUTPUT_TOKENS the SDK's 32000 is refused, and the error names the variable",
  async (t) => {
    const { key } = await newKey();
    const run = await sdk.query('echo: too long an answer budget', { apiKey: key });
    t.match(run.result, { type: 'result', is_error: true });
    t.match(String(run.thrown), /max_tokens: must be <= 8000 .*CLAUDE_CODE_MAX_OUTPUT_TOKENS/);
  },
);

t.test(
  "with dialects.messages.max_tokens_over_limit: clamp, the SDK's default 32000 is served with 8000",
  async (t) => {
    const clamped = await startStack({ yaml: 'dialects:\n  messages:\n    max_tokens_over_limit: clamp\n' });
    t.teardown(() => clamped.close());
    const onClamped = startAgentSdk({ baseUrl: clamped.gateway.url, model: MODEL });
    t.teardown(() => onClamped.close());
    const run = await onClamped.query('echo: clamped by the gateway', { apiKey: 'sk-any' });
    succeeded(t, run);
    t.match(run.result, { result: 'clamped by the gateway' });
    const sent = clamped.sim
      .requests()
      .filter((request) => request.path === '/v1/chat/completions')
      .map((request) => (request.body as { max_tokens?: number }).max_tokens);
    t.same(sent, [8000], 'the upstream was given the limit');
  },
);
