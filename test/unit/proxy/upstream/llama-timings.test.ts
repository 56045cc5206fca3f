// llama-server's running usage (proxy/upstream/llama-timings.ts): the `timings` its chunks carry with
// `timings_per_token: true`, as canonical usage, then checked like any usage (proxy/upstream/usage-check.ts).
import t from 'tap';
import { estimateInputTokens } from '../../../../limits/estimate.js';
import type { ChatChunk, ChatRequest, ChatUsage } from '../../../../core/canonical.js';
import { usageFromTimings } from '../../../../proxy/upstream/llama-timings.js';
import { UsageCheck } from '../../../../proxy/upstream/usage-check.js';
import { chatChunk } from '../../../kit/chunks.js';

const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Hello' }] };

/** llama-server's timings (server_slot_stats::to_json), recorded from llama-server de3ff81 on the second token. */
const TIMINGS = {
  cache_n: 1,
  prompt_n: 8,
  prompt_ms: 12.5,
  prompt_per_token_ms: 1.5625,
  prompt_per_second: 640,
  predicted_n: 2,
  predicted_ms: 25.1,
  predicted_per_token_ms: 25.1,
  predicted_per_second: 39.8,
};

function chunkWith(timings: unknown, usage?: ChatUsage): ChatChunk {
  return { ...chatChunk({ content: 'Hello' }, { finish_reason: null }, usage), timings } as ChatChunk;
}

/** The chunk's usage once read and checked, and what the check logged. */
function checked(chunk: ChatChunk): { usage: ChatUsage | null | undefined; warnings: object[] } {
  const warnings: object[] = [];
  usageFromTimings(chunk);
  new UsageCheck(request, 4096, { warn: (fields) => void warnings.push(fields) }).see(chunk);
  return { usage: chunk.usage, warnings };
}

t.test('timings are a usage: prompt = cache_n + prompt_n, cached = cache_n, completion = predicted_n', async (t) => {
  const { usage, warnings } = checked(chunkWith(TIMINGS));
  t.same(usage, {
    prompt_tokens: 9,
    completion_tokens: 2,
    total_tokens: 11,
    prompt_tokens_details: { cached_tokens: 1 },
  });
  t.same(warnings, []);
});

t.test('timings never go further than the terminal', async (t) => {
  const chunk = chunkWith(TIMINGS);
  usageFromTimings(chunk);
  t.notOk('timings' in chunk);
});

t.test("the final usage chunk's own usage stands beside its timings", async (t) => {
  const own = {
    prompt_tokens: 9,
    completion_tokens: 11,
    total_tokens: 20,
    prompt_tokens_details: { cached_tokens: 0 },
  };
  const chunk = { ...chunkWith({ ...TIMINGS, predicted_n: 11 }, own), choices: [] };
  usageFromTimings(chunk);
  t.same(chunk.usage, own);
});

t.test('a chunk without timings gets no usage', async (t) => {
  const chunk = chunkWith(undefined);
  usageFromTimings(chunk);
  t.equal(chunk.usage, undefined);
  const garbage = chunkWith('fast');
  usageFromTimings(garbage);
  t.equal(garbage.usage, undefined, 'timings that are not an object say nothing');
});

t.test("nonsense timings are refused by the usage check: the gateway's own count replaces them", async (t) => {
  const estimate = estimateInputTokens(request);
  for (const [name, timings, expected] of [
    ['negative cache_n', { ...TIMINGS, cache_n: -4 }, { prompt_tokens: estimate, completion_tokens: 2 }],
    ['fractional prompt_n', { ...TIMINGS, prompt_n: 2.5 }, { prompt_tokens: estimate, completion_tokens: 2 }],
    ['prompt_n as a string', { ...TIMINGS, prompt_n: '8' }, { prompt_tokens: estimate, completion_tokens: 2 }],
    ['a prompt beyond the context', { ...TIMINGS, prompt_n: 1e18 }, { prompt_tokens: estimate, completion_tokens: 2 }],
    ['negative predicted_n', { ...TIMINGS, predicted_n: -1 }, { prompt_tokens: 9, completion_tokens: 2 }],
    ['no predicted_n', { cache_n: 1, prompt_n: 8 }, { prompt_tokens: 9, completion_tokens: 2 }],
    ['predicted_n beyond the text', { ...TIMINGS, predicted_n: 4000 }, { prompt_tokens: 9, completion_tokens: 2 }],
  ] as const) {
    const { usage, warnings } = checked(chunkWith(timings));
    t.match(usage, expected, name);
    t.equal(warnings.length, 1, `${name}: logged`);
  }
  const { usage } = checked(chunkWith({ ...TIMINGS, cache_n: 20, prompt_n: 0 }));
  t.match(usage, { prompt_tokens: 20, prompt_tokens_details: { cached_tokens: 20 } }, 'a prompt all from the cache');
});
