// The sim's llama-server flavor against the real llama-server: ONE list of requests, sent in the same
// order to a real llama-server serving the tiny Qwen3 model (upstream-tier/) and to the sim playing
// llama-server, and their answers compared by shape (wire-shape.ts: field sets, finish reasons,
// object and error types, ids, where timings and usage appear, how a stream's chunks follow each
// other) and by the facts both must agree on (prompt token counts, cached tokens, the prefill's echo,
// the stop string cut, the tokenizer's and the template's output). The generated text differs: the
// sim's model is not the tiny one. Without a llama-server binary (LLAMA_SERVER_BIN, or
// upstream-tier/build-llama-server.sh) the comparison is skipped, except under CI, where it fails.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { Agent, fetch } from 'undici';
import { packageRoot } from '../../config/package-root.js';
import { startSim } from '../../sim/server.js';
import { llamaServerBinary, startLlamaServer } from '../../upstream-tier/llama-server.js';
import { WEATHER_TOOL } from '../../upstream-tier/tiny-qwen3-check.js';
import { freePort } from '../helpers/free-port.js';
import { skeleton, sseChunks, streamShape } from './wire-shape.js';

// Building llama-server, when its binary is not cached yet, takes 15–20 minutes.
t.setTimeout(30 * 60_000);

/** What is compared of one answer. */
interface Observed {
  status: number;
  shape: unknown;
  facts: Record<string, unknown>;
}

interface Answer {
  status: number;
  /** The JSON body (not streamed) or the chunks (streamed). */
  json: unknown;
  chunks: unknown[];
  done: boolean;
}

interface Scenario {
  name: string;
  method?: 'GET' | 'POST';
  path?: string;
  /** A JSON body, or a string sent as it is. */
  body?: unknown;
  /** Values both servers must give, beyond the shape. */
  facts?: (answer: Answer) => Record<string, unknown>;
}

const ASK = { role: 'user', content: 'think: Let me think.\necho: Hello world!' };
const CALL = { role: 'user', content: 'get_weather city=Paris' };
const TOOLS = { tools: [WEATHER_TOOL] };
const THINKING_OFF = { chat_template_kwargs: { enable_thinking: false } };
const PREFILL = [ASK, { role: 'assistant', content: 'Sure:' }];
const AFTER_TOOL_RESULT = [
  CALL,
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": 21}' },
];
const TOO_LONG = [{ role: 'user', content: 'word '.repeat(5000) }];
const USAGE = { stream_options: { include_usage: true } };

type Json = Record<string, unknown>;
const field = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>((v, key) => (v as Json | undefined)?.[key as string], value);
const usageOf = (answer: Answer): unknown =>
  answer.chunks.length > 0 ? field(answer.chunks.at(-1), 'usage') : field(answer.json, 'usage');
const promptTokens = (answer: Answer) => ({ prompt_tokens: field(usageOf(answer), 'prompt_tokens') });
const contentOf = (answer: Answer): string =>
  answer.chunks.length > 0
    ? answer.chunks.map((c) => (field(c, 'choices', 0, 'delta', 'content') as string | undefined) ?? '').join('')
    : ((field(answer.json, 'choices', 0, 'message', 'content') as string | undefined) ?? '');
const firstContentDelta = (answer: Answer): unknown =>
  answer.chunks.map((c) => field(c, 'choices', 0, 'delta', 'content')).find((c) => typeof c === 'string');

const SCENARIOS: Scenario[] = [
  { name: 'chat, thinking on', body: { messages: [ASK] }, facts: promptTokens },
  { name: 'chat, thinking on, streamed with usage', body: { messages: [ASK], stream: true, ...USAGE } },
  {
    name: 'a repeated prompt: all of it but its last token comes from the slot',
    body: { messages: [ASK] },
    facts: (answer) => {
      const usage = usageOf(answer);
      const cached = field(usage, 'prompt_tokens_details', 'cached_tokens') as number;
      return { all_but_one_cached: cached === (field(usage, 'prompt_tokens') as number) - 1 };
    },
  },
  {
    name: 'chat, thinking off, streamed',
    body: { messages: [ASK], stream: true, ...THINKING_OFF },
    facts: promptTokens,
  },
  { name: 'timings_per_token, streamed', body: { messages: [ASK], stream: true, timings_per_token: true } },
  { name: 'tools offered: a tool call', body: { messages: [CALL], ...TOOLS }, facts: promptTokens },
  { name: 'tools offered: a tool call, streamed', body: { messages: [CALL], ...TOOLS, stream: true } },
  {
    name: 'tools offered, thinking off: a tool call, streamed',
    body: { messages: [CALL], ...TOOLS, ...THINKING_OFF, stream: true },
  },
  {
    name: 'after the tool result: a text answer',
    body: { messages: AFTER_TOOL_RESULT, ...TOOLS },
    facts: promptTokens,
  },
  {
    name: 'a stop string: finish_reason stop, no stop_reason, the string cut from the text',
    body: { messages: [ASK], ...THINKING_OFF, stop: ['world'] },
    facts: (answer) => ({ text: contentOf(answer) }),
  },
  {
    name: 'a stop string, streamed',
    body: { messages: [ASK], ...THINKING_OFF, stop: ['world'], stream: true },
    facts: (answer) => ({ text: contentOf(answer) }),
  },
  { name: 'max_tokens ends the answer inside the thinking', body: { messages: [ASK], max_tokens: 3 } },
  {
    name: 'a trailing assistant message is continued, and echoed',
    body: { messages: PREFILL },
    facts: (answer) => ({ echoed: contentOf(answer).startsWith('Sure:'), ...promptTokens(answer) }),
  },
  {
    name: 'a prefill, streamed: the first content delta brings it',
    body: { messages: PREFILL, stream: true },
    facts: (answer) => ({ echoed: String(firstContentDelta(answer)).startsWith('Sure:') }),
  },
  {
    name: 'what llama-server does not know is ignored (model, cache_salt, continuous_usage_stats, include_stop_str_in_output, unknown fields)',
    body: {
      model: 'some-other-model',
      messages: [ASK],
      cache_salt: 'org-1',
      include_stop_str_in_output: true,
      stream: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
      some_field_nobody_knows: { deep: [1] },
    },
  },
  {
    name: 'a prompt longer than the context: 400 exceed_context_size_error',
    body: { messages: TOO_LONG },
    facts: (answer) => ({
      n_prompt_tokens: field(answer.json, 'error', 'n_prompt_tokens'),
      n_ctx: field(answer.json, 'error', 'n_ctx'),
    }),
  },
  {
    name: 'a prompt longer than the context, streamed: the same 400 before any chunk',
    body: { messages: TOO_LONG, stream: true },
  },
  { name: 'messages not a list: 400 invalid_request_error', body: { messages: 'Hi' } },
  { name: 'a body that is not JSON: 500 server_error', body: '{"messages": [' },
  {
    name: 'GET /props',
    method: 'GET',
    path: '/props',
    facts: (answer) => ({
      n_ctx: field(answer.json, 'default_generation_settings', 'n_ctx'),
      total_slots: field(answer.json, 'total_slots'),
    }),
  },
  { name: 'GET /health', method: 'GET', path: '/health' },
  {
    name: 'GET /v1/models',
    method: 'GET',
    path: '/v1/models',
    facts: (answer) => ({ n_ctx: field(answer.json, 'data', 0, 'meta', 'n_ctx') }),
  },
  {
    name: 'POST /tokenize {content}: the same tokens',
    path: '/tokenize',
    body: { content: '<|im_start|>user\nGrüße 🎉<|im_end|>', add_special: true, parse_special: true },
    facts: (answer) => ({ tokens: field(answer.json, 'tokens') }),
  },
  {
    name: 'POST /tokenize with_pieces: a piece that is not whole UTF-8 as its bytes',
    path: '/tokenize',
    body: { content: 'Hello 🎉', with_pieces: true },
    facts: (answer) => ({ tokens: field(answer.json, 'tokens') }),
  },
  {
    name: 'POST /apply-template: the same prompt, a prefill left open',
    path: '/apply-template',
    body: { messages: PREFILL },
    facts: (answer) => ({ prompt: field(answer.json, 'prompt') }),
  },
  {
    name: 'POST /apply-template with tools and thinking off: the same prompt',
    path: '/apply-template',
    body: { messages: AFTER_TOOL_RESULT, ...TOOLS, ...THINKING_OFF },
    facts: (answer) => ({ prompt: field(answer.json, 'prompt') }),
  },
  {
    name: 'POST /detokenize',
    path: '/detokenize',
    body: { tokens: [9707, 1879, 151645] },
    facts: (answer) => ({ content: field(answer.json, 'content') }),
  },
  { name: "vLLM's GET /version: 404", method: 'GET', path: '/version' },
  { name: 'GET on the chat path: 404', method: 'GET', path: '/v1/chat/completions' },
];

async function send(base: string, scenario: Scenario): Promise<Answer> {
  const method = scenario.method ?? 'POST';
  // A connection per request: llama-server closes idle ones, and a POST sent on one as it closes is lost.
  const dispatcher = new Agent({ pipelining: 0 });
  const response = await fetch(`${base}${scenario.path ?? '/v1/chat/completions'}`, {
    method,
    dispatcher,
    ...(method === 'POST'
      ? {
          headers: { 'content-type': 'application/json' },
          body: typeof scenario.body === 'string' ? scenario.body : JSON.stringify(scenario.body ?? {}),
        }
      : {}),
  });
  const text = await response.text();
  await dispatcher.close();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { status: response.status, json: undefined, ...sseChunks(text) };
  }
  return { status: response.status, json: JSON.parse(text) as unknown, chunks: [], done: false };
}

function observe(scenario: Scenario, answer: Answer): Observed {
  return {
    status: answer.status,
    shape: answer.chunks.length > 0 ? { stream: streamShape(answer.chunks), done: answer.done } : skeleton(answer.json),
    facts: scenario.facts?.(answer) ?? {},
  };
}

let binary: string | undefined;
let unavailable = '';
try {
  binary = await llamaServerBinary();
} catch (error) {
  unavailable = (error as Error).message;
}

t.test(
  'a llama-server binary is there (CI must have one)',
  { skip: !process.env.CI && binary === undefined ? unavailable : false },
  async (t) => {
    t.ok(binary, unavailable);
  },
);

t.test(
  'the sim playing llama-server answers every scenario as the real llama-server does',
  { skip: binary === undefined && `no llama-server: ${unavailable}`, timeout: 300_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-parity-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const model = join(dir, 'tiny-qwen3.gguf');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'upstream-tier/make-tiny-qwen3.ts', model], {
      cwd: packageRoot(),
    });
    const real = await startLlamaServer({ binary: binary as string, model, port: await freePort() });
    t.teardown(() => real.stop());
    // As the real one: its n_ctx (-c 4096), its slots (-np auto: 4), the model named after its path.
    const sim = await startSim({
      flavor: 'llama-server',
      reasoningParser: true,
      maxModelLen: 4096,
      servedModel: model,
    });
    t.teardown(() => sim.close());

    for (const scenario of SCENARIOS) {
      const fromReal = observe(scenario, await send(real.url, scenario));
      const fromSim = observe(scenario, await send(sim.url, scenario));
      t.same(fromSim, fromReal, scenario.name);
    }
  },
);
