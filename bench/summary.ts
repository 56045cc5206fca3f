// The repeats of each cell folded into one row (medians), and the issue's targets judged on those rows.
import type { CellResult } from './load.js';
import type { FuzzMemoryResult } from './fuzz-memory.js';
import type { MemoryResult } from './memory.js';
import { median } from './stats.js';
import type { TtfbResult } from './ttfb.js';

export interface SummaryRow {
  target: string;
  scenario: string;
  repeats: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  /** The highest resident memory seen after a repeat. */
  rssMb: number;
  simCpuUsPerRequest: number;
  /** The CPU per request of the target's services (redis-server, PostgreSQL), median over the repeats; null without any. */
  servicesCpuUsPerRequest: number | null;
  /** The highest steal (percent of the machine's CPU time taken by the hypervisor) seen in a repeat. */
  maxStealPct: number;
  /** The highest share of the machine's CPU time used by processes outside the bench seen in a repeat. */
  maxOtherPct: number;
  /** Summed over the repeats. */
  errors: number;
  non2xx: number;
  timeouts: number;
}

export interface Verdict {
  goal: string;
  measured: string;
  pass: boolean;
}

// The issue's targets (#13), each against the bare http-proxy-3 pass-through of the same run unless said otherwise.

/** The full chain (gateway-full) CPU per request, per scenario, at most this many times http-proxy-3's. */
export const FULL_CHAIN_CPU_LIMITS: Readonly<Record<string, number>> = {
  nonstream: 1.3,
  'stream-burst': 1.6,
  'stream-paced': 1.3,
};
/** gateway-full-redis (its own process; the redis-server's CPU shown beside it) on this scenario, at most this. */
export const REDIS_CPU_LIMIT = 1.6;
const REDIS_SCENARIO = 'nonstream';
/** The full chain's CPU per paced chunk (see chunkCost), at most this many times http-proxy-3's. */
export const PACED_CHUNK_LIMIT = 1.2;
const PACED_SCENARIO = 'stream-paced';
const NONSTREAM_SCENARIO = 'nonstream';
/** The message and responses dialects' CPU per request, at most this many times the chat path's (plain gateway). */
export const DIALECT_LIMIT = 1.15;
const OTHER_DIALECTS = ['gateway-messages', 'gateway-responses'];
/** The time to first byte the full chain adds over the sim at p50, per concurrency, at most this many ms (c=1: #30's). */
export const ADDED_TTFB_LIMITS_MS: Readonly<Record<number, number>> = { 1: 0.5, 16: 2 };
/** The full chain's resident memory, MB: idle after start, and with OPEN_STREAMS streams open. */
export const IDLE_RSS_LIMIT_MB = 100;
export const OPEN_STREAMS_RSS_LIMIT_MB = 250;
/** #30: the gateway's peak resident memory through the fuzz, at most this many MB. */
export const FUZZ_RSS_LIMIT_MB = 300;
/** The full chain's throughput at least this many times Portkey's, on these scenarios (paced streams are pace-bound). */
export const PORTKEY_THROUGHPUT_MIN = 10;

// The targets of issue #30: the CPU the full chain adds over the bare pass-through, in microseconds (the figure
// that holds from one machine to another, where the ratios do not), and what a second worker costs and gives.

/** The full chain's CPU per non-streamed request over http-proxy-3's, at most this many µs. */
export const ADDED_JSON_US_LIMIT = 60;
/** The full chain's CPU per paced chunk over http-proxy-3's, at most this many µs. */
export const ADDED_PACED_CHUNK_US_LIMIT = 10;
/** The two-worker node's CPU per request (all its processes), at most this many times one process's. */
export const WORKERS_CPU_LIMIT = 1.1;
/** The two-worker node's streamed throughput (saturated: a burst of chunks), at least this many times one process's. */
export const WORKERS_THROUGHPUT_MIN = 1.5;
const WORKERS_THROUGHPUT_SCENARIO = 'stream-burst';
const WORKERS = 'gateway-full-workers';
const PORTKEY_SCENARIOS = ['nonstream', 'stream-burst'];
/** The full chain (the targets are set on it), with its counters in Redis, and the floor it is measured against. */
const FULL = 'gateway-full';
const FULL_REDIS = 'gateway-full-redis';
const FULL_POSTGRES = 'gateway-full-pg';
const BARE = 'http-proxy-3';

export function summarize(cells: readonly CellResult[]): SummaryRow[] {
  const groups = new Map<string, CellResult[]>();
  for (const cell of cells) {
    const key = `${cell.scenario}\u0000${cell.target}`;
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const pick = (field: (cell: CellResult) => number): number => median(group.map(field));
    return {
      target: first.target,
      scenario: first.scenario,
      repeats: group.length,
      rps: pick((cell) => cell.rps),
      p50Ms: pick((cell) => cell.p50Ms),
      p99Ms: pick((cell) => cell.p99Ms),
      cpuUsPerRequest: pick((cell) => cell.cpuUsPerRequest),
      rssMb: Math.max(...group.map((cell) => cell.rssMb)),
      simCpuUsPerRequest: pick((cell) => (cell.requests > 0 ? (cell.simCpuMs * 1000) / cell.requests : Number.NaN)),
      servicesCpuUsPerRequest:
        first.servicesCpuMs === null
          ? null
          : pick((cell) =>
              cell.requests > 0 && cell.servicesCpuMs !== null
                ? (cell.servicesCpuMs * 1000) / cell.requests
                : Number.NaN,
            ),
      maxStealPct: Math.max(...group.map((cell) => cell.stealPct)),
      maxOtherPct: Math.max(...group.map((cell) => cell.otherPct)),
      errors: sum(group.map((cell) => cell.errors)),
      non2xx: sum(group.map((cell) => cell.non2xx)),
      timeouts: sum(group.map((cell) => cell.timeouts)),
    };
  });
}

export function rowFor(rows: readonly SummaryRow[], target: string, scenario: string): SummaryRow | undefined {
  return rows.find((row) => row.target === target && row.scenario === scenario);
}

/**
 * The marginal CPU cost of one streamed chunk: (CPU per request on the streamed scenario - CPU per request
 * non-streamed) / chunks, what a target spends per chunk over a request's fixed cost. Undefined without both rows.
 */
export function chunkCost(
  rows: readonly SummaryRow[],
  target: string,
  scenario: string,
  chunks: number,
): number | undefined {
  const streamed = rowFor(rows, target, scenario);
  const whole = rowFor(rows, target, NONSTREAM_SCENARIO);
  return streamed === undefined || whole === undefined || chunks <= 0
    ? undefined
    : (streamed.cpuUsPerRequest - whole.cpuUsPerRequest) / chunks;
}

/** What the verdicts read besides the load's rows. */
export interface JudgeInputs {
  ttfb: readonly TtfbResult[];
  memory: MemoryResult | undefined;
  /** The memory-under-fuzz pass, when run. */
  fuzz?: FuzzMemoryResult | undefined;
  scenarios: readonly string[];
  /** Content chunks per streamed request. */
  chunks: number;
}

/**
 * The issue's targets, each a PASS or a MISS: the full chain's CPU per request (each scenario) and per paced chunk
 * against http-proxy-3's; with Redis counters non-streamed; the other dialects against the chat path; the full chain's
 * added time to first byte, its memory, and its throughput against Portkey's.
 */
export function judge(rows: readonly SummaryRow[], inputs: JudgeInputs): Verdict[] {
  const { scenarios } = inputs;
  const verdicts: Verdict[] = [];
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
  for (const scenario of scenarios) {
    const full = rowFor(rows, FULL, scenario);
    const bare = rowFor(rows, BARE, scenario);
    const limit = FULL_CHAIN_CPU_LIMITS[scenario];
    if (full === undefined || bare === undefined || limit === undefined) continue;
    const plain = rowFor(rows, 'gateway', scenario);
    verdicts.push({
      goal: `${scenario}: ${FULL} (default chain) CPU/request <= ${limit}x bare ${BARE}`,
      measured: `${us(full.cpuUsPerRequest)} / ${us(bare.cpuUsPerRequest)} us = ${ratio(full.cpuUsPerRequest, bare.cpuUsPerRequest)}${plain === undefined ? '' : ` (${ratio(full.cpuUsPerRequest, plain.cpuUsPerRequest)} the plain gateway)`}`,
      pass: full.cpuUsPerRequest <= limit * bare.cpuUsPerRequest,
    });
  }
  const redis = rowFor(rows, FULL_REDIS, REDIS_SCENARIO);
  const redisBare = rowFor(rows, BARE, REDIS_SCENARIO);
  if (redis !== undefined && redisBare !== undefined) {
    const server =
      redis.servicesCpuUsPerRequest === null
        ? ''
        : `; redis-server +${us(redis.servicesCpuUsPerRequest)} us/req beside it, together ${ratio(redis.cpuUsPerRequest + redis.servicesCpuUsPerRequest, redisBare.cpuUsPerRequest)}`;
    verdicts.push({
      goal: `${REDIS_SCENARIO}: ${FULL_REDIS} (Redis counters) CPU/request of the gateway <= ${REDIS_CPU_LIMIT}x bare ${BARE}`,
      measured: `${us(redis.cpuUsPerRequest)} / ${us(redisBare.cpuUsPerRequest)} us = ${ratio(redis.cpuUsPerRequest, redisBare.cpuUsPerRequest)}${server}`,
      pass: redis.cpuUsPerRequest <= REDIS_CPU_LIMIT * redisBare.cpuUsPerRequest,
    });
  }
  const fullChunk = chunkCost(rows, FULL, PACED_SCENARIO, inputs.chunks);
  const bareChunk = chunkCost(rows, BARE, PACED_SCENARIO, inputs.chunks);
  if (fullChunk !== undefined && bareChunk !== undefined) {
    verdicts.push({
      goal: `per paced chunk: ${FULL} CPU <= ${PACED_CHUNK_LIMIT}x bare ${BARE}`,
      measured: `${fullChunk.toFixed(1)} / ${bareChunk.toFixed(1)} us = ${ratio(fullChunk, bareChunk)}`,
      pass: fullChunk <= PACED_CHUNK_LIMIT * bareChunk,
    });
    verdicts.push({
      goal: `#30 per paced chunk: ${FULL} adds <= ${ADDED_PACED_CHUNK_US_LIMIT} us of CPU over bare ${BARE}`,
      measured: `${fullChunk.toFixed(1)} - ${bareChunk.toFixed(1)} = +${(fullChunk - bareChunk).toFixed(1)} us (${ratio(fullChunk, bareChunk)})`,
      pass: fullChunk - bareChunk <= ADDED_PACED_CHUNK_US_LIMIT,
    });
  }
  const fullJson = rowFor(rows, FULL, NONSTREAM_SCENARIO);
  const bareJson = rowFor(rows, BARE, NONSTREAM_SCENARIO);
  if (fullJson !== undefined && bareJson !== undefined)
    verdicts.push({
      goal: `#30 JSON request: ${FULL} adds <= ${ADDED_JSON_US_LIMIT} us of CPU over bare ${BARE}`,
      measured: `${us(fullJson.cpuUsPerRequest)} - ${us(bareJson.cpuUsPerRequest)} = +${us(fullJson.cpuUsPerRequest - bareJson.cpuUsPerRequest)} us (${ratio(fullJson.cpuUsPerRequest, bareJson.cpuUsPerRequest)})`,
      pass: fullJson.cpuUsPerRequest - bareJson.cpuUsPerRequest <= ADDED_JSON_US_LIMIT,
    });
  const workersJson = rowFor(rows, WORKERS, NONSTREAM_SCENARIO);
  if (workersJson !== undefined && fullJson !== undefined)
    verdicts.push({
      goal: `#30 two workers: CPU/request of the node (primary and workers) <= ${WORKERS_CPU_LIMIT}x one process's (${FULL}), JSON`,
      measured: `${us(workersJson.cpuUsPerRequest)} / ${us(fullJson.cpuUsPerRequest)} us = ${ratio(workersJson.cpuUsPerRequest, fullJson.cpuUsPerRequest)}`,
      pass: workersJson.cpuUsPerRequest <= WORKERS_CPU_LIMIT * fullJson.cpuUsPerRequest,
    });
  const workersStream = rowFor(rows, WORKERS, WORKERS_THROUGHPUT_SCENARIO);
  const fullStream = rowFor(rows, FULL, WORKERS_THROUGHPUT_SCENARIO);
  if (workersStream !== undefined && fullStream !== undefined)
    verdicts.push({
      goal: `#30 two workers: ${WORKERS_THROUGHPUT_SCENARIO} req/s >= ${WORKERS_THROUGHPUT_MIN}x one process's (the load generator and the sim share the cores)`,
      measured: `${workersStream.rps.toFixed(0)} / ${fullStream.rps.toFixed(0)} req/s = ${ratio(workersStream.rps, fullStream.rps)}; CPU/request ${us(workersStream.cpuUsPerRequest)} / ${us(fullStream.cpuUsPerRequest)} us`,
      pass: workersStream.rps >= WORKERS_THROUGHPUT_MIN * fullStream.rps,
    });
  for (const target of OTHER_DIALECTS) {
    for (const scenario of scenarios) {
      const other = rowFor(rows, target, scenario);
      const chat = rowFor(rows, 'gateway', scenario);
      if (other === undefined || chat === undefined) continue;
      verdicts.push({
        goal: `${scenario}: ${target} CPU/request <= ${DIALECT_LIMIT}x the chat path (gateway)`,
        measured: `${us(other.cpuUsPerRequest)} / ${us(chat.cpuUsPerRequest)} us = ${ratio(other.cpuUsPerRequest, chat.cpuUsPerRequest)}`,
        pass: other.cpuUsPerRequest <= DIALECT_LIMIT * chat.cpuUsPerRequest,
      });
    }
  }
  for (const result of inputs.ttfb.filter((entry) => entry.target === FULL)) {
    const limit = ADDED_TTFB_LIMITS_MS[result.concurrency];
    if (limit === undefined) continue;
    verdicts.push({
      goal: `c=${result.concurrency}: time to first byte added by ${FULL} over the sim <= ${limit} ms at p50`,
      measured: `+${result.addedP50Ms.toFixed(3)} ms (p99 +${result.addedP99Ms.toFixed(3)} ms)${result.overProxyP50Ms === null ? '' : `; over bare ${BARE}: ${signed(result.overProxyP50Ms)} ms at p50`}`,
      pass: result.addedP50Ms <= limit,
    });
  }
  const memory = inputs.memory;
  if (memory !== undefined) {
    verdicts.push({
      goal: `${memory.target} resident memory idle after start <= ${IDLE_RSS_LIMIT_MB} MB`,
      measured: `${memory.idleMb.toFixed(0)} MB`,
      pass: memory.idleMb <= IDLE_RSS_LIMIT_MB,
    });
    const all = memory.maxOpen === memory.streams;
    verdicts.push({
      goal: `${memory.target} resident memory with ${memory.streams} open streams <= ${OPEN_STREAMS_RSS_LIMIT_MB} MB`,
      measured: `${memory.openMb.toFixed(0)} MB${all ? '' : ` (only ${memory.maxOpen} were open at once: not judged)`}; ${memory.afterMb.toFixed(0)} MB after they ended`,
      pass: all && memory.openMb <= OPEN_STREAMS_RSS_LIMIT_MB,
    });
  }
  const fuzz = inputs.fuzz;
  if (fuzz !== undefined)
    verdicts.push({
      goal: `#30 the gateway's resident memory through ${fuzz.cases} fuzz cases (seed ${fuzz.seed}) <= ${FUZZ_RSS_LIMIT_MB} MB at its peak`,
      measured: `${fuzz.peakMb} MB at most (${fuzz.beforeMb} MB before, ${fuzz.afterMb} MB after)${fuzz.failed ? '; the fuzz reported failures' : ''}`,
      pass: fuzz.peakMb <= FUZZ_RSS_LIMIT_MB,
    });
  for (const scenario of PORTKEY_SCENARIOS) {
    const full = rowFor(rows, FULL, scenario);
    const portkey = rowFor(rows, 'portkey', scenario);
    if (full === undefined || portkey === undefined) continue;
    verdicts.push({
      goal: `${scenario}: ${FULL} req/s >= ${PORTKEY_THROUGHPUT_MIN}x portkey's (machine-bound: load generator and both servers share the CPUs)`,
      measured: `${full.rps.toFixed(0)} / ${portkey.rps.toFixed(0)} req/s = ${ratio(full.rps, portkey.rps)}; CPU/request portkey ${us(portkey.cpuUsPerRequest)} / ${FULL} ${us(full.cpuUsPerRequest)} us = ${ratio(portkey.cpuUsPerRequest, full.cpuUsPerRequest)}`,
      pass: full.rps >= PORTKEY_THROUGHPUT_MIN * portkey.rps,
    });
  }
  return verdicts;
}

/** Ratios printed under the verdicts with no target of their own: the plain gateway, Redis streamed, the fleet node, Portkey paced. */
export function unjudgedRatios(rows: readonly SummaryRow[], scenarios: readonly string[]): string[] {
  const lines: string[] = [];
  const cpuRatios = (target: string, only: (scenario: string) => boolean): string[] =>
    scenarios.filter(only).flatMap((scenario) => {
      const row = rowFor(rows, target, scenario);
      const bare = rowFor(rows, BARE, scenario);
      return row === undefined || bare === undefined
        ? []
        : [`${scenario} ${(row.cpuUsPerRequest / bare.cpuUsPerRequest).toFixed(2)}x`];
    });
  const plain = cpuRatios('gateway', () => true);
  if (plain.length > 0) lines.push(`----  gateway (no plugins): CPU/request vs bare ${BARE}: ${plain.join(', ')}`);
  const redis = cpuRatios(FULL_REDIS, (scenario) => scenario !== REDIS_SCENARIO);
  if (redis.length > 0) lines.push(`----  ${FULL_REDIS}: CPU/request vs bare ${BARE}: ${redis.join(', ')}`);
  // The fleet node: its own CPU against the in-process full chain's, and PostgreSQL's and Redis's beside it.
  const fleetNode = scenarios.flatMap((scenario) => {
    const node = rowFor(rows, FULL_POSTGRES, scenario);
    const alone = rowFor(rows, FULL, scenario);
    if (node === undefined || alone === undefined) return [];
    const services =
      node.servicesCpuUsPerRequest === null ? '' : ` (+${us(node.servicesCpuUsPerRequest)} us in redis+postgres)`;
    return [`${scenario} ${us(node.cpuUsPerRequest)} vs ${us(alone.cpuUsPerRequest)} us${services}`];
  });
  if (fleetNode.length > 0)
    lines.push(
      `----  ${FULL_POSTGRES} (PostgreSQL + Redis) vs ${FULL} (SQLite, in-process counters), CPU/request: ${fleetNode.join(', ')}`,
    );
  const full = rowFor(rows, FULL, PACED_SCENARIO);
  const portkey = rowFor(rows, 'portkey', PACED_SCENARIO);
  if (full !== undefined && portkey !== undefined)
    lines.push(
      `----  ${PACED_SCENARIO} (pace-bound req/s): ${FULL} ${full.rps.toFixed(0)} / portkey ${portkey.rps.toFixed(0)} req/s; CPU/request portkey ÷ ${FULL} ${(portkey.cpuUsPerRequest / full.cpuUsPerRequest).toFixed(2)}x`,
    );
  return lines;
}

/** Which bare pass-through spends less per chunk (chunkCost) on each streaming scenario, with req/s and p50 beside it. */
export function upstreamLegChoice(
  rows: readonly SummaryRow[],
  streamingScenarios: readonly string[],
  chunks: number,
): string[] {
  return streamingScenarios.flatMap((scenario) => {
    const proxy = rowFor(rows, BARE, scenario);
    const undici = rowFor(rows, 'undici', scenario);
    const proxyChunk = chunkCost(rows, BARE, scenario, chunks);
    const undiciChunk = chunkCost(rows, 'undici', scenario, chunks);
    if (proxy === undefined || undici === undefined || proxyChunk === undefined || undiciChunk === undefined) return [];
    const faster = undiciChunk < proxyChunk ? 'undici' : BARE;
    const describe = (row: SummaryRow, chunk: number): string =>
      `${chunk.toFixed(2)} us/chunk, ${row.rps.toFixed(0)} req/s, p50 ${row.p50Ms} ms`;
    return [
      `${scenario}: undici ${describe(undici, undiciChunk)} | ${BARE} ${describe(proxy, proxyChunk)} -> ${faster} uses less CPU`,
    ];
  });
}

function us(value: number): string {
  return value.toFixed(0);
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
