// The valid requests the fuzzer starts from: for each of the four POST routes, streamed and not, with
// system prompts, multi-turn history, content blocks, client tools and their results, and the search
// tools of the message and responses dialects. Every seed sent as is gets a 200 (the fuzz test checks).
import type { RouteName } from './routes.js';

export interface Seed {
  route: RouteName;
  name: string;
  body: Record<string, unknown>;
}

const MODEL = 'qwen3-8b';

const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
  required: ['city'],
};

const chat: Record<string, unknown>[] = [
  { model: MODEL, messages: [{ role: 'user', content: 'Hello there' }] },
  {
    model: MODEL,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Tell me a story.' }],
  },
  {
    model: MODEL,
    max_tokens: 64,
    temperature: 0.7,
    top_p: 0.9,
    seed: 7,
    stop: ['\n\n'],
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'What is a gateway?' },
      { role: 'assistant', content: 'A door.' },
      { role: 'user', content: [{ type: 'text', text: 'Say more.' }] },
    ],
  },
  {
    model: MODEL,
    stream: true,
    max_completion_tokens: 128,
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_SCHEMA },
      },
    ],
    tool_choice: 'auto',
    messages: [{ role: 'user', content: 'What is the weather in Lisbon?' }],
  },
  {
    model: MODEL,
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_SCHEMA } }],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    messages: [
      { role: 'developer', content: 'Use tools.' },
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp":3}' },
    ],
  },
];

const messages: Record<string, unknown>[] = [
  { model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }] },
  {
    model: MODEL,
    max_tokens: 256,
    stream: true,
    system: 'You are terse.',
    messages: [{ role: 'user', content: 'Tell me a story.' }],
  },
  {
    model: MODEL,
    max_tokens: 128,
    temperature: 0.5,
    top_k: 40,
    stop_sequences: ['END'],
    metadata: { user_id: 'u-1' },
    system: [{ type: 'text', text: 'You are a careful assistant.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'What is a gateway?' }] },
      {
        role: 'assistant',
        content: [
          // Unsigned: a signature is the gateway's own (its secret), and a made-up one is a 400.
          { type: 'thinking', thinking: 'Short answer.', signature: '' },
          { type: 'text', text: 'A door.' },
        ],
      },
      { role: 'user', content: 'Say more.' },
    ],
  },
  {
    model: MODEL,
    max_tokens: 200,
    stream: true,
    tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: WEATHER_SCHEMA }],
    tool_choice: { type: 'auto' },
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '3 degrees' }] },
          { type: 'text', text: 'And tomorrow?' },
        ],
      },
    ],
  },
  {
    model: MODEL,
    max_tokens: 300,
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2, allowed_domains: ['example.com'] }],
    messages: [{ role: 'user', content: 'search: lisbon weather' }],
  },
  {
    model: MODEL,
    max_tokens: 300,
    stream: true,
    tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    messages: [{ role: 'user', content: 'search: carbonara recipe' }],
  },
];

const countTokens: Record<string, unknown>[] = [
  { model: MODEL, messages: [{ role: 'user', content: 'Hello there' }] },
  {
    model: MODEL,
    system: 'You are terse.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Count me.' }] }],
  },
  {
    model: MODEL,
    tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: WEATHER_SCHEMA }],
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '3 degrees', is_error: false }],
      },
    ],
  },
  {
    model: MODEL,
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    messages: [{ role: 'user', content: 'search: tokyo weather' }],
  },
];

const responses: Record<string, unknown>[] = [
  { model: MODEL, input: 'Hello there' },
  { model: MODEL, stream: true, instructions: 'You are terse.', max_output_tokens: 128, input: 'Tell me a story.' },
  {
    model: MODEL,
    max_tokens: 96,
    temperature: 1.2,
    top_p: 0.5,
    store: false,
    metadata: { run: 'fuzz' },
    input: [
      { role: 'developer', content: 'Be brief.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is a gateway?' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A door.' }] },
      { role: 'user', content: 'Say more.' },
    ],
  },
  {
    model: MODEL,
    tools: [{ type: 'web_search', search_context_size: 'low', filters: { allowed_domains: ['example.com'] } }],
    input: 'search: lisbon weather',
  },
  {
    model: MODEL,
    stream: true,
    tools: [{ type: 'web_search_preview' }],
    input: [{ role: 'user', content: 'search: carbonara recipe' }],
  },
];

const seeds = (route: RouteName, bodies: Record<string, unknown>[]): Seed[] =>
  bodies.map((body, index) => ({ route, name: `${route}#${index}`, body }));

export const CORPUS: readonly Seed[] = [
  ...seeds('chat', chat),
  ...seeds('messages', messages),
  ...seeds('count_tokens', countTokens),
  ...seeds('responses', responses),
];

export function seedsOf(route: RouteName): Seed[] {
  return CORPUS.filter((seed) => seed.route === route);
}
