// The real OpenCode CLI (1.18.33) headless against the gateway on its defaults (no x-gateway-wire
// header) and the sim, configured as the README says: an `opencode.json` with a custom provider
// through @ai-sdk/openai (which talks /v1/responses) or @ai-sdk/openai-compatible (/v1/chat/completions).
// One `opencode run` per scenario: a plain answer (which OpenCode always streams), a tool round trip
// with its `read` tool, its reported usage against the ledger, a bad key. A recording proxy between
// the two keeps what they said to each other. The prompts drive the sim's rules (sim/README.md).
import t from 'tap';
import { readSse } from '../kit/sse-reader.js';
import { answerOf, startOpenCode, stepTokens, type OpenCode, type OpenCodeRun } from '../helpers/opencode.js';
import { ledgerRowsOfKey } from '../helpers/metered-answers.js';
import { startRecordingProxy, type RecordedExchange } from '../helpers/recording-proxy.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS } from '../kit/stack-presets.js';

const MODEL = 'qwen3-8b';

// Four OpenCode runs of 10-25 s each and their start-up on a busy 2-core machine: near tap's two minutes per file.
t.setTimeout(5 * 60_000);

const stack = await stackForFile(t, {
  // function_tools: OpenCode sends its tools with every request, on /v1/responses too (as Codex does).
  yaml: CHAINS.authMeter + 'dialects:\n  responses:\n    function_tools: true\n',
});
const store = await stack.store();
await store.orgs.create('acme');
await store.orgs.addCredits('acme', 100_000_000);
const proxy = await startRecordingProxy(stack.gateway.url);
t.teardown(() => proxy.close());
const opencode = startOpenCode({ baseURL: `${proxy.url}/v1`, model: MODEL, contextTokens: 32768, outputTokens: 8000 });
t.teardown(() => opencode.close());

interface Session {
  run: OpenCodeRun;
  exchanges: RecordedExchange[];
  /** The id of the key the run used (one key per run: its ledger rows are the run's). */
  keyId: string;
}

let runs = 0;
async function session(prompt: string, options: Partial<Parameters<OpenCode['run']>[1]> = {}): Promise<Session> {
  const created = await (await stack.store()).keys.create('acme', `opencode-${++runs}`);
  const before = proxy.exchanges().length;
  const run = await opencode.run(prompt, { provider: '@ai-sdk/openai', apiKey: created.key, ...options });
  return { run, exchanges: proxy.exchanges().slice(before), keyId: created.record.id };
}

// One run serves the plain answer, its stream and its usage.
let plain: Promise<Session> | undefined;
const plainSession = (): Promise<Session> => (plain ??= session('echo: hello from opencode'));

t.test('regression: OpenCode through @ai-sdk/openai finished with an empty answer', async (t) => {
  const { run } = await plainSession();
  t.equal(run.code, 0, `exit 0 (stderr tail: ${run.stderr.slice(-500)})`);
  t.same(
    run.events.filter((event) => event.type === 'error'),
    [],
    'no error',
  );
  t.equal(answerOf(run), 'hello from opencode', 'the answer is the text the model wrote');
});

t.test('OpenCode streams its request over /v1/responses without a wire header, and gets string deltas', async (t) => {
  const { exchanges } = await plainSession();
  const calls = exchanges.filter((exchange) => exchange.method === 'POST' && exchange.path === '/v1/responses');
  t.equal(calls.length, 1, 'one model call');
  const call = calls[0]!;
  t.equal(call.headers['x-gateway-wire'], undefined, 'no wire header');
  t.match(call.body, { model: MODEL, stream: true, max_output_tokens: 8000 });
  t.equal(call.status, 200);
  const deltas = readSse(call.response)
    .filter((frame) => frame.event === 'response.output_text.delta')
    .map((frame) => (JSON.parse(frame.data) as { delta: unknown }).delta);
  t.ok(deltas.length > 1, `${deltas.length} deltas`);
  t.ok(
    deltas.every((delta) => typeof delta === 'string'),
    "OpenAI's wire: every delta a string",
  );
  t.equal(deltas.join(''), 'hello from opencode');
});

t.test("the tokens OpenCode reports are the gateway's ledger row", async (t) => {
  const { run, keyId } = await plainSession();
  const rows = await ledgerRowsOfKey(store.db, keyId);
  t.equal(rows.length, 1, 'one row');
  const tokens = stepTokens(run);
  t.equal(tokens.length, 1, 'one step');
  t.same(
    {
      input_tokens: tokens[0]!.input,
      output_tokens: tokens[0]!.output,
      cache_read_tokens: tokens[0]!.cache.read,
      cache_write_tokens: tokens[0]!.cache.write,
      state: 'settled',
    },
    rows[0],
  );
});

t.test("a tool round trip: OpenCode's read tool reads a file of its directory and the answer holds it", async (t) => {
  const { run, exchanges } = await session('read filePath=notes.txt offset=- limit=-', {
    files: { 'notes.txt': 'a line from the notes' },
  });
  t.equal(run.code, 0, `exit 0 (stderr tail: ${run.stderr.slice(-500)})`);
  const used = run.events.find((event) => event.type === 'tool_use');
  t.match(used?.part, { tool: 'read', state: { status: 'completed', output: /1: a line from the notes/ } });
  t.match(answerOf(run), /^Tool results: [^]*1: a line from the notes/, "the model's answer to the result");
  const calls = exchanges.filter((exchange) => exchange.path === '/v1/responses');
  t.same(
    calls.map((call) => call.status),
    [200, 200],
    'two calls, both served',
  );
  const input = (calls[1]?.body as { input?: Array<{ type?: string; name?: string }> } | undefined)?.input ?? [];
  t.ok(
    input.some((item) => item.type === 'function_call' && item.name === 'read') &&
      input.some((item) => item.type === 'function_call_output'),
    'the second sends the call and its output back',
  );
});

t.test('a bad key: OpenCode reports the 401 and exits non-zero', async (t) => {
  const { run } = await session('echo: never answered', { apiKey: 'sk-svc-not-a-key' });
  t.not(run.code, 0, 'a failed run');
  t.match(
    run.events.find((event) => event.type === 'error'),
    { error: { name: 'APIError', data: { statusCode: 401, message: /invalid_api_key/ } } },
  );
});

t.test('OpenCode through @ai-sdk/openai-compatible answers over /v1/chat/completions', async (t) => {
  const { run, exchanges } = await session('echo: hello over chat', { provider: '@ai-sdk/openai-compatible' });
  t.equal(run.code, 0, `exit 0 (stderr tail: ${run.stderr.slice(-500)})`);
  t.equal(answerOf(run), 'hello over chat');
  t.match(
    exchanges.filter((exchange) => exchange.method === 'POST'),
    [{ path: '/v1/chat/completions', status: 200, body: { stream: true } }],
  );
});
