// The memory pass: the resident memory of one target's process with many slow streams open at once, and after they
// have ended and the process has had time to collect its garbage.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { CHAT_PATH, requestBody, requestHeaders, type Scenario } from './scenarios.js';
import type { Target } from './targets.js';

/** The figure: a node meant to hold about 1,000 open streams (the gateway keeps 1,024 upstream connections). */
export const OPEN_STREAMS = 1000;

/** 20 chunks 500 ms apart: each stream stays open ~10 s, long enough for all of them to be open at once. */
export const MEMORY_SCENARIO: Scenario = {
  name: 'stream-paced',
  stream: true,
  chunks: 20,
  simHeaders: { 'x-sim-ttft-ms': '0', 'x-sim-itl-ms': '500', 'x-sim-output-tokens': '24' },
  about: 'stream:true, ttft 0, 20 chunks 500 ms apart (~10 s a stream)',
};

/** How often the process's memory is read while the streams run. */
const SAMPLE_MS = 100;
/**
 * After the last stream: V8 collects on its own once a process turns idle (its memory reducer starts a few seconds
 * after the allocation rate drops); a process not started with --expose-gc cannot be told to collect from outside.
 */
export const SETTLE_S = 10;

export interface MemoryResult {
  target: string;
  /** Resident memory before the process served any request, MB. */
  idleMb: number;
  /** Streams asked for. */
  streams: number;
  /** The most streams open (first body byte received, not yet ended) at one time. */
  maxOpen: number;
  /** The highest resident memory read while `maxOpen` streams were open, MB. */
  openMb: number;
  /** The highest resident memory read during the pass, MB. */
  peakMb: number;
  /** Resident memory SETTLE_S after the last stream ended, MB. */
  afterMb: number;
  /** Streams that did not end with a 200 and a complete body. */
  failed: number;
  /** From the first request to the moment all streams were open, ms (NaN if they never were). */
  allOpenAfterMs: number;
}

/** Opens `streams` slow streams on the target's chat path at once, reading its process's memory as they run. */
export async function measureMemory(target: Target, idleMb: number, streams = OPEN_STREAMS): Promise<MemoryResult> {
  const pool = new Pool(target.server.url, { connections: streams, pipelining: 1 });
  const body = requestBody('chat', MEMORY_SCENARIO, target.model, MEMORY_SCENARIO.chunks);
  const headers = requestHeaders(MEMORY_SCENARIO, target.headers);
  let open = 0;
  let maxOpen = 0;
  let openMb = 0;
  let peakMb = 0;
  let allOpenAfterMs = Number.NaN;
  let running = true;
  const started = performance.now();
  const sampler = (async () => {
    while (running) {
      const rss = target.server.rssMb();
      peakMb = Math.max(peakMb, rss);
      if (open > maxOpen) {
        maxOpen = open;
        openMb = rss;
      } else if (open === maxOpen && open > 0) openMb = Math.max(openMb, rss);
      if (open === streams && Number.isNaN(allOpenAfterMs)) allOpenAfterMs = performance.now() - started;
      await sleep(SAMPLE_MS);
    }
  })();
  const one = async (): Promise<boolean> => {
    let counted = false;
    try {
      const response = await pool.request({ method: 'POST', path: CHAT_PATH, headers, body });
      for await (const _chunk of response.body) {
        if (!counted) {
          counted = true;
          open += 1;
        }
      }
      return response.statusCode === 200;
    } catch {
      return false;
    } finally {
      if (counted) open -= 1;
    }
  };
  const outcomes = await Promise.all(Array.from({ length: streams }, one));
  running = false;
  await sampler;
  await pool.close();
  await sleep(SETTLE_S * 1000);
  return {
    target: target.name,
    idleMb,
    streams,
    maxOpen,
    openMb,
    peakMb,
    afterMb: target.server.rssMb(),
    failed: outcomes.filter((ok) => !ok).length,
    allOpenAfterMs,
  };
}
