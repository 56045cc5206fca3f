// The repeats of each cell folded into one row (medians), and the issue's targets judged on those rows.
import type { CellResult } from './load.js';
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
  cpuUsPerChunk: number | null;
  /** The highest resident memory seen after a repeat. */
  rssMb: number;
  simCpuUsPerRequest: number;
  /** The CPU per request of the target's redis-server (gateway-full-redis), median over the repeats; null without one. */
  redisCpuUsPerRequest: number | null;
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

/** The gateway's CPU per request may be at most this many times the bare http-proxy-3 pass-through's. */
export const CPU_RATIO_LIMIT = 1.5;
/** The time to first byte the gateway adds, at p50, at most this many milliseconds. */
export const ADDED_TTFB_LIMIT_MS = 1;
/** The message dialect's issue: CPU per streamed request (stream-burst, stream-paced) at most this many times http-proxy-3's. */
export const MESSAGES_STREAM_CPU_LIMIT = 2;
/** The message dialect's issue: CPU per paced chunk (stream-paced) at most this many times http-proxy-3's. */
export const MESSAGES_PACED_CHUNK_LIMIT = 1.3;
/** The scenario whose CPU per chunk the message dialect's chunk target is judged on. */
const PACED_SCENARIO = 'stream-paced';
/** The full chain's issue (auth + validation + rate limit + metering): CPU per request at most this many times http-proxy-3's, chat path. */
export const FULL_CHAIN_CPU_LIMIT = 1.5;
/** The full-chain targets, judged against FULL_CHAIN_CPU_LIMIT in every scenario. */
export const FULL_CHAIN_TARGETS = ['gateway-full', 'gateway-full-redis'];
/** The full chain's target is set on this scenario; the others are reported beside it. */
const FULL_CHAIN_PRIMARY = 'nonstream';

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
      cpuUsPerChunk: first.cpuUsPerChunk === null ? null : pick((cell) => cell.cpuUsPerChunk ?? Number.NaN),
      rssMb: Math.max(...group.map((cell) => cell.rssMb)),
      simCpuUsPerRequest: pick((cell) => (cell.requests > 0 ? (cell.simCpuMs * 1000) / cell.requests : Number.NaN)),
      redisCpuUsPerRequest:
        first.redisCpuMs === null
          ? null
          : pick((cell) =>
              cell.requests > 0 && cell.redisCpuMs !== null ? (cell.redisCpuMs * 1000) / cell.requests : Number.NaN,
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
 * The chat path: one CPU verdict per scenario. The message path: CPU per request on each streamed scenario, and CPU
 * per chunk on stream-paced. The full chain (gateway-full, gateway-full-redis): one CPU verdict per scenario, with the
 * ratio to the plain gateway and redis-server's share beside it. Then one verdict per concurrency for the added time
 * to first byte (chat path).
 * Every CPU ratio is against the bare http-proxy-3's chat row of the same scenario.
 */
export function judge(
  rows: readonly SummaryRow[],
  ttfb: readonly TtfbResult[],
  scenarios: readonly string[],
): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const scenario of scenarios) {
    const gateway = rowFor(rows, 'gateway', scenario);
    const bare = rowFor(rows, 'http-proxy-3', scenario);
    if (gateway === undefined || bare === undefined) continue;
    const ratio = gateway.cpuUsPerRequest / bare.cpuUsPerRequest;
    verdicts.push({
      goal: `${scenario}: gateway CPU/request <= ${CPU_RATIO_LIMIT}x bare http-proxy-3`,
      measured: `${gateway.cpuUsPerRequest.toFixed(0)} / ${bare.cpuUsPerRequest.toFixed(0)} us = ${ratio.toFixed(2)}x`,
      pass: ratio <= CPU_RATIO_LIMIT,
    });
  }
  for (const scenario of scenarios) {
    const messages = rowFor(rows, 'gateway-messages', scenario);
    const bare = rowFor(rows, 'http-proxy-3', scenario);
    if (messages === undefined || bare === undefined || messages.cpuUsPerChunk === null) continue;
    const ratio = messages.cpuUsPerRequest / bare.cpuUsPerRequest;
    verdicts.push({
      goal: `${scenario}: gateway-messages CPU/request <= ${MESSAGES_STREAM_CPU_LIMIT}x bare http-proxy-3`,
      measured: `${messages.cpuUsPerRequest.toFixed(0)} / ${bare.cpuUsPerRequest.toFixed(0)} us = ${ratio.toFixed(2)}x`,
      pass: ratio <= MESSAGES_STREAM_CPU_LIMIT,
    });
  }
  const pacedMessages = rowFor(rows, 'gateway-messages', PACED_SCENARIO);
  const pacedBare = rowFor(rows, 'http-proxy-3', PACED_SCENARIO);
  if (
    pacedMessages !== undefined &&
    pacedBare !== undefined &&
    pacedMessages.cpuUsPerChunk !== null &&
    pacedBare.cpuUsPerChunk !== null
  ) {
    const ratio = pacedMessages.cpuUsPerChunk / pacedBare.cpuUsPerChunk;
    verdicts.push({
      goal: `${PACED_SCENARIO}: gateway-messages CPU/chunk <= ${MESSAGES_PACED_CHUNK_LIMIT}x bare http-proxy-3`,
      measured: `${pacedMessages.cpuUsPerChunk.toFixed(2)} / ${pacedBare.cpuUsPerChunk.toFixed(2)} us = ${ratio.toFixed(2)}x`,
      pass: ratio <= MESSAGES_PACED_CHUNK_LIMIT,
    });
  }
  for (const target of FULL_CHAIN_TARGETS) {
    for (const scenario of scenarios) {
      const full = rowFor(rows, target, scenario);
      const bare = rowFor(rows, 'http-proxy-3', scenario);
      if (full === undefined || bare === undefined) continue;
      const ratio = full.cpuUsPerRequest / bare.cpuUsPerRequest;
      const plain = rowFor(rows, 'gateway', scenario);
      const redis =
        full.redisCpuUsPerRequest === null
          ? ''
          : `; redis-server +${full.redisCpuUsPerRequest.toFixed(0)} us/req, together ${((full.cpuUsPerRequest + full.redisCpuUsPerRequest) / bare.cpuUsPerRequest).toFixed(2)}x`;
      verdicts.push({
        goal: `${scenario}${scenario === FULL_CHAIN_PRIMARY ? ' (primary)' : ''}: ${target} (full chain) CPU/request <= ${FULL_CHAIN_CPU_LIMIT}x bare http-proxy-3`,
        measured: `${full.cpuUsPerRequest.toFixed(0)} / ${bare.cpuUsPerRequest.toFixed(0)} us = ${ratio.toFixed(2)}x${plain === undefined ? '' : ` (${(full.cpuUsPerRequest / plain.cpuUsPerRequest).toFixed(2)}x plain gateway)`}${redis}`,
        pass: ratio <= FULL_CHAIN_CPU_LIMIT,
      });
    }
  }
  for (const result of ttfb.filter((entry) => entry.target === 'gateway')) {
    verdicts.push({
      goal: `c=${result.concurrency}: time to first byte added by the gateway <= ${ADDED_TTFB_LIMIT_MS} ms at p50`,
      measured: `+${result.addedP50Ms.toFixed(3)} ms (p99 +${result.addedP99Ms.toFixed(3)} ms)`,
      pass: result.addedP50Ms <= ADDED_TTFB_LIMIT_MS,
    });
  }
  return verdicts;
}

/** The gateway paths that have no target of their own: their CPU per request against http-proxy-3's, per scenario, to read. */
export function unjudgedRatios(
  rows: readonly SummaryRow[],
  scenarios: readonly string[],
  targets: readonly string[],
): string[] {
  return targets.flatMap((target) => {
    const ratios = scenarios.flatMap((scenario) => {
      const row = rowFor(rows, target, scenario);
      const bare = rowFor(rows, 'http-proxy-3', scenario);
      return row === undefined || bare === undefined
        ? []
        : [`${scenario} ${(row.cpuUsPerRequest / bare.cpuUsPerRequest).toFixed(2)}x`];
    });
    return ratios.length === 0
      ? []
      : [`----  ${target} (no target): CPU/request vs bare http-proxy-3: ${ratios.join(', ')}`];
  });
}

/** Which bare pass-through is faster on each streaming scenario: lower CPU per chunk, with req/s and p50 beside it. */
export function upstreamLegChoice(rows: readonly SummaryRow[], streamingScenarios: readonly string[]): string[] {
  return streamingScenarios.flatMap((scenario) => {
    const proxy = rowFor(rows, 'http-proxy-3', scenario);
    const undici = rowFor(rows, 'undici', scenario);
    if (proxy === undefined || undici === undefined || proxy.cpuUsPerChunk === null || undici.cpuUsPerChunk === null)
      return [];
    const faster = undici.cpuUsPerChunk < proxy.cpuUsPerChunk ? 'undici' : 'http-proxy-3';
    const describe = (row: SummaryRow): string =>
      `${row.cpuUsPerChunk!.toFixed(2)} us/chunk, ${row.rps.toFixed(0)} req/s, p50 ${row.p50Ms} ms`;
    return [`${scenario}: undici ${describe(undici)} | http-proxy-3 ${describe(proxy)} -> ${faster} uses less CPU`];
  });
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
