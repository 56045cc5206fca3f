// The real Claude Code CLI (2.1.332, node_modules/.bin/claude) headless against the gateway and the sim
// (#14), with the environment the README documents: a plain prompt, a Bash tool round trip, WebSearch
// through the gateway's server-side search, a sub-agent asking for the haiku model, gateway model
// discovery, /context, and thinking on through a Bash tool round trip (a sim with its reasoning
// parser). A recording proxy between the two keeps what they said to each other.
// The prompts drive the sim's rules (sim/README.md): `echo:` answers, `Tool prop=value` tool calls.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startClaudeCode, type ClaudeCode, type ClaudeRun } from '../helpers/claude-code.js';
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from '../helpers/recording-proxy.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { sseJson } from '../kit/sse-reader.js';

const MODEL = 'qwen3-8b';
const CONTEXT = 32768;
/** The ids Claude Code 2.1.332 sends for its haiku, sonnet and opus tiers when they are not set. */
const ALIASES = ['claude-haiku-5-5', 'claude-sonnet-5-5', 'claude-opus-5-5'];
const WARNING = /assumes a context window/;

let stack: Stack;
let proxy: RecordingProxy;
let claude: ClaudeCode;
t.before(async () => {
  stack = await startStack({
    yaml: [
      'model:',
      `  max_context_tokens: ${CONTEXT}`,
      `  aliases: [${ALIASES.join(', ')}]`,
      'plugins:',
      '  - name: auth',
      '  - name: search',
      '    options: { provider: local }',
    ].join('\n'),
  });
  const store = await stack.store();
  await store.orgs.create('acme');
  const { key } = await store.keys.create('acme', 'claude-code');
  proxy = await startRecordingProxy(stack.gateway.url);
  claude = startClaudeCode({
    baseUrl: proxy.url,
    apiKey: key,
    model: MODEL,
    contextTokens: CONTEXT,
    maxOutputTokens: 8000,
  });
});
t.teardown(async () => {
  claude.close();
  await proxy.close();
  await stack.close();
});

/** A run, with the exchanges it had with the gateway. */
async function session(
  prompt: string,
  options: Parameters<ClaudeCode['run']>[1] = {},
): Promise<{ run: ClaudeRun; exchanges: RecordedExchange[] }> {
  const before = proxy.exchanges().length;
  const run = await claude.run(prompt, options);
  return { run, exchanges: proxy.exchanges().slice(before) };
}

/** The run ended well: exit 0, a result that is no error, and no context-window warning anywhere. */
function succeeded(t: Test, run: ClaudeRun): void {
  t.equal(run.code, 0, `exit 0 (stderr: ${run.stderr})`);
  t.match(run.json, { type: 'result', is_error: false });
  t.notMatch(run.debugLog, WARNING, 'no context-window warning in the debug log');
  t.notMatch(run.stdout + run.stderr, WARNING, 'nor on stdout or stderr');
}

const messageCalls = (exchanges: RecordedExchange[]): RecordedExchange[] =>
  exchanges.filter((exchange) => exchange.method === 'POST' && exchange.path.startsWith('/v1/messages?'));

t.test('claude -p answers a plain prompt through /v1/messages, with no context-window warning', async (t) => {
  const { run, exchanges } = await session('echo: hello from the gateway');
  succeeded(t, run);
  t.equal(run.json?.result, 'hello from the gateway');
  const calls = messageCalls(exchanges);
  t.ok(calls.length > 0);
  t.ok(
    calls.every((call) => call.status === 200 && (call.body as { model: string }).model === MODEL),
    'every call named the model and got 200',
  );
});

t.test(
  'a Bash tool round trip: Claude Code runs the call in its directory and the answer holds the output',
  async (t) => {
    const { run } = await session(
      'Bash command="touch made-by-claude.txt && echo made" timeout=60000 description="Make a file" run_in_background=false dangerouslyDisableSandbox=false',
      { args: ['--allowedTools', 'Bash'] },
    );
    succeeded(t, run);
    t.ok(existsSync(join(run.dir, 'made-by-claude.txt')), 'the file exists');
    t.equal(run.json?.result, 'Tool results: made');
  },
);

t.test(
  "regression (found 2): WebSearch, loaded through ToolSearch, runs the gateway's search on the demo corpus",
  async (t) => {
    const { run, exchanges } = await session(
      'ToolSearch query="WebSearch lisbon weather" max_results=5, then WebSearch allowed_domains=["weather.example"]',
      { args: ['--allowedTools', 'WebSearch'] },
    );
    succeeded(t, run);
    t.same(
      exchanges.filter((exchange) => exchange.status !== 200).map((exchange) => [exchange.path, exchange.response]),
      [],
      "no call refused: not ToolSearch's tool_reference result",
    );
    const searched = messageCalls(exchanges).find((call) =>
      (call.body as { tools?: Array<{ type?: string }> }).tools?.some((tool) => tool.type?.startsWith('web_search_')),
    );
    t.match(
      searched?.body,
      { tools: [{ type: /^web_search_/, name: 'web_search', allowed_domains: ['weather.example'] }] },
      "Claude Code's search tool, with its allowed list (2.1.330's empty blocked list: messages-search.test.ts)",
    );
    t.match(searched?.response, /"type":"web_search_tool_result"/, 'the gateway searched');
    t.match(run.json?.result, /https:\/\/weather\.example\/forecast\/lisbon/, 'the answer holds the results');
  },
);

t.test('regression (found 3): a sub-agent asking for the haiku model is served through the alias', async (t) => {
  const { run, exchanges } = await session(
    'Agent description="Say hi" prompt="echo: the sub-agent answers" subagent_type=general-purpose model=haiku effort=- run_in_background=false isolation=-',
    // The tiers left to Claude Code's own ids, as a client that sets only ANTHROPIC_MODEL has them.
    {
      args: ['--allowedTools', 'Agent'],
      env: {
        ANTHROPIC_DEFAULT_HAIKU_MODEL: undefined,
        ANTHROPIC_DEFAULT_SONNET_MODEL: undefined,
        ANTHROPIC_DEFAULT_OPUS_MODEL: undefined,
      },
    },
  );
  succeeded(t, run);
  const haiku = messageCalls(exchanges).filter((call) => (call.body as { model: string }).model === ALIASES[0]);
  t.ok(haiku.length > 0, 'the sub-agent asked for the haiku id');
  t.ok(
    haiku.every((call) => call.status === 200),
    'and was served',
  );
  t.match(run.json?.result, /the sub-agent answers/, "the sub-agent's answer came back to the main agent");
  t.ok(await stack.logged((entry) => entry.msg === 'request' && entry.model === ALIASES[0]), 'logged under the alias');
});

t.test(
  "gateway model discovery (CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY) lists the aliases in Claude Code's picker",
  async (t) => {
    const { run, exchanges } = await session('echo: discovered', {
      env: { CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1' },
    });
    succeeded(t, run);
    t.ok(
      exchanges.some(
        (exchange) => exchange.method === 'GET' && exchange.path === '/v1/models?limit=1000' && exchange.status === 200,
      ),
    );
    const cached = JSON.parse(readFileSync(join(run.configDir, 'cache', 'gateway-models.json'), 'utf8')) as {
      models: Array<{ id: string }>;
    };
    // Claude Code keeps the ids that name Claude or Anthropic: the aliases, not the model's own id.
    t.same(
      cached.models.map((model) => model.id),
      ALIASES,
    );
  },
);

t.test("/context: every count_tokens call is answered, and the figures are the gateway's", async (t) => {
  const { run, exchanges } = await session('/context');
  succeeded(t, run);
  const counts = exchanges.filter((exchange) => exchange.path.startsWith('/v1/messages/count_tokens'));
  t.ok(counts.length >= 20, `${counts.length} count_tokens calls`);
  t.equal(counts.length, exchanges.length, 'and nothing else');
  t.ok(
    counts.every((exchange) => exchange.status === 200),
    'all answered',
  );
  const report = run.json?.result ?? '';
  t.match(report, /\*\*Tokens:\*\* [\d.]+k \/ 32\.8k/, "the model's window");
  // The system prompt row is the sum of the gateway's counts of the prompt's sections (counted one by
  // one, each as a message of its own, with no tools).
  const sections = counts.filter((exchange) => {
    const body = exchange.body as { tools?: unknown[]; messages: Array<{ content: unknown }> };
    return (body.tools ?? []).length === 0 && body.messages[0]?.content !== 'foo';
  });
  const counted = sections.reduce(
    (sum, exchange) => sum + (JSON.parse(exchange.response) as { input_tokens: number }).input_tokens,
    0,
  );
  const shown = Number(/\| System prompt \| ([\d.]+)k \|/.exec(report)?.[1]) * 1000;
  t.ok(Math.abs(shown - counted) <= 50, `System prompt ${shown} is the sections' ${counted}`);
});

/** One event of a streamed /v1/messages answer, as far as these tests read it. */
interface StreamedEvent {
  type: string;
  content_block?: { type: string };
  delta?: Record<string, string>;
}

/** The events of a streamed answer, in order. */
const streamedEvents = (response: string): StreamedEvent[] => sseJson<StreamedEvent>(response);

t.test(
  'thinking on through a Bash tool round trip: the signed thinking block is replayed and reaches the model',
  async (t) => {
    // Qwen3 behind vLLM's reasoning parser. The stack runs without the auth plugin: any key passes.
    const thinking = await startStack({
      sim: { reasoningParser: true },
      yaml: `model:\n  max_context_tokens: ${CONTEXT}`,
    });
    const recording = await startRecordingProxy(thinking.gateway.url);
    const thinker = startClaudeCode({
      baseUrl: recording.url,
      apiKey: 'sk-any',
      model: MODEL,
      contextTokens: CONTEXT,
      maxOutputTokens: 8000,
    });
    t.teardown(async () => {
      thinker.close();
      await recording.close();
      await thinking.close();
    });
    const run = await thinker.run(
      'think: The user wants a file.\nBash command="touch thought.txt && echo made" timeout=60000 description="Make a file" run_in_background=false dangerouslyDisableSandbox=false',
      { args: ['--allowedTools', 'Bash'] },
    );
    succeeded(t, run);
    t.ok(existsSync(join(run.dir, 'thought.txt')), 'the Bash command ran');
    t.equal(run.json?.result, 'Tool results: made', 'the answer holds the tool result');
    const exchanges = recording.exchanges();
    t.same(
      exchanges.filter((exchange) => exchange.status >= 400).map((exchange) => [exchange.path, exchange.response]),
      [],
      'no request refused',
    );

    const [first, followUp] = messageCalls(exchanges);
    // Claude Code 2.1.332 asks for thinking on its own, for a model it does not know too.
    t.match(first?.body, { thinking: { type: 'adaptive' } }, 'Claude Code asked for thinking');
    const events = streamedEvents(first?.response ?? '');
    t.same(
      events
        .filter((event) => event.type === 'content_block_start' || event.type === 'content_block_delta')
        .map((event) => event.content_block?.type ?? event.delta?.type)
        .filter((type, at, all) => type !== all[at - 1]),
      ['thinking', 'thinking_delta', 'signature_delta', 'tool_use', 'input_json_delta'],
      'a thinking block of thinking_deltas closed by a signature_delta, before the tool_use',
    );
    const text = events
      .filter((event) => event.delta?.type === 'thinking_delta')
      .map((event) => event.delta!.thinking)
      .join('');
    const signature = events.find((event) => event.delta?.type === 'signature_delta')?.delta?.signature;
    t.equal(text, '\nThe user wants a file.\n', "the thinking is the prompt's think: line");
    t.match(signature, /^v1\./, 'signed');

    t.equal(followUp?.status, 200, 'the follow-up with the tool result was accepted');
    const replayed = (followUp?.body as { messages: Array<{ role: string; content: unknown }> }).messages.find(
      (message) => message.role === 'assistant',
    );
    t.match(
      replayed?.content,
      [
        { type: 'thinking', thinking: text, signature },
        { type: 'tool_use', name: 'Bash' },
      ],
      'Claude Code replayed the thinking block with its signature',
    );
    const upstream = thinking.sim
      .requests()
      .filter((request) => request.path === '/v1/chat/completions')
      .map((request) => request.body as { chat_template_kwargs?: unknown; messages: Array<{ role: string }> });
    t.match(upstream[0], { chat_template_kwargs: { enable_thinking: true } }, 'the upstream was told to think');
    t.match(
      upstream[1]?.messages.find((message) => message.role === 'assistant'),
      { reasoning_content: text, tool_calls: [{ function: { name: 'Bash' } }] },
      "the replayed thinking reached the model as the assistant turn's reasoning_content",
    );
  },
);
