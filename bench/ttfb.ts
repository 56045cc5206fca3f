// The time to the first body byte, per target, at a fixed concurrency: what a client waits before the first token.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { CHAT_PATH, requestBody, requestHeaders, type Scenario } from './scenarios.js';
import { rotate } from './rotate.js';
import { quantile } from './stats.js';
import type { Target } from './targets.js';

/** Streamed, ttft 0, 5 ms between chunks like a model, but only 4 chunks so that a sample takes ~20 ms, not ~100. */
export const TTFB_SCENARIO: Scenario = {
  name: 'stream-paced',
  stream: true,
  chunks: 4,
  simHeaders: { 'x-sim-ttft-ms': '0', 'x-sim-itl-ms': '5', 'x-sim-output-tokens': '8' },
  about: 'stream:true, ttft 0, 4 chunks 5 ms apart',
};

export interface TtfbOptions {
  concurrency: number;
  /** Samples per target. */
  samples: number;
  /** The samples are taken in this many rounds, the targets interleaved within each. */
  rounds: number;
}

export interface TtfbResult {
  target: string;
  concurrency: number;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  /** This target's p50 minus the direct one's; 0 for direct. */
  addedP50Ms: number;
  addedP99Ms: number;
  /** This target's p50 minus the bare http-proxy-3's (what it adds over a Node hop); null without http-proxy-3. */
  overProxyP50Ms: number | null;
}

/** Chat targets only (the path is the chat one for all). */
export async function measureTtfb(targets: readonly Target[], options: TtfbOptions): Promise<TtfbResult[]> {
  const other = targets.find((target) => target.dialect !== 'chat');
  if (other !== undefined)
    throw new Error(`the time to first byte is measured on the chat path only, not for ${other.name}`);
  const pools = new Map(
    targets.map((target) => [target, new Pool(target.server.url, { connections: options.concurrency, pipelining: 1 })]),
  );
  const samples = new Map<Target, number[]>(targets.map((target) => [target, []]));
  try {
    for (const target of targets) await batch(pools.get(target)!, target, options.concurrency, options.concurrency * 4); // fill the pool
    const perRound = Math.ceil(options.samples / options.rounds);
    for (let round = 0; round < options.rounds; round++) {
      const order = rotate(targets, round);
      for (const target of order)
        samples.get(target)!.push(...(await batch(pools.get(target)!, target, options.concurrency, perRound)));
    }
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()));
  }
  const direct = targets.find((target) => target.name === 'direct');
  const directSamples = direct === undefined ? [] : samples.get(direct)!;
  const proxy = targets.find((target) => target.name === 'http-proxy-3');
  const proxyP50Ms = proxy === undefined ? null : quantile(samples.get(proxy)!, 0.5);
  return targets.map((target) => {
    const own = samples.get(target)!;
    const p50Ms = quantile(own, 0.5);
    const p99Ms = quantile(own, 0.99);
    return {
      target: target.name,
      concurrency: options.concurrency,
      samples: own.length,
      p50Ms,
      p99Ms,
      addedP50Ms: p50Ms - quantile(directSamples, 0.5),
      addedP99Ms: p99Ms - quantile(directSamples, 0.99),
      overProxyP50Ms: proxyP50Ms === null ? null : p50Ms - proxyP50Ms,
    };
  });
}

/** `count` samples, `concurrency` at a time. */
async function batch(pool: Pool, target: Target, concurrency: number, count: number): Promise<number[]> {
  const results: number[] = [];
  const body = requestBody('chat', TTFB_SCENARIO, target.model, TTFB_SCENARIO.chunks);
  const headers = requestHeaders(TTFB_SCENARIO, target.headers);
  let left = count;
  const worker = async (): Promise<void> => {
    while (left > 0) {
      left -= 1;
      results.push(await sample(pool, headers, body, target.name));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

/** Milliseconds from sending the request to the first byte of the response body. */
async function sample(pool: Pool, headers: Record<string, string>, body: string, name: string): Promise<number> {
  const start = performance.now();
  const response = await pool.request({ method: 'POST', path: CHAT_PATH, headers, body });
  let first = Number.NaN;
  for await (const _chunk of response.body) {
    if (Number.isNaN(first)) first = performance.now();
  }
  if (response.statusCode !== 200)
    throw new Error(`${name}: status ${response.statusCode} while measuring the time to first byte`);
  return first - start;
}
