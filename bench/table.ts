// The console report: the matrix, the ratios to the bare pass-through, the cost per chunk, the time to first byte, the
// memory, the verdicts.
import { MEMORY_SCENARIO, SETTLE_S, type MemoryResult } from './memory.js';
import { chunkCost, rowFor, type SummaryRow, type Verdict } from './summary.js';
import { TARGET_NAMES } from './targets.js';
import type { TtfbResult } from './ttfb.js';

type Cell = string | number | null;

export function matrixTable(
  rows: readonly SummaryRow[],
  scenarios: readonly string[],
  targets: readonly string[],
): string {
  const header = [
    'scenario',
    'target',
    'req/s',
    'p50 ms',
    'p99 ms',
    'CPU us/req',
    'RSS MB',
    'sim us/req',
    'services us/req',
    'steal %',
    'other %',
    'errors',
  ];
  const body: Cell[][] = [];
  for (const scenario of scenarios) {
    for (const target of targets) {
      const row = rowFor(rows, target, scenario);
      if (row === undefined) continue;
      const failures = row.errors + row.non2xx + row.timeouts;
      body.push([
        scenario,
        target,
        row.rps.toFixed(0),
        row.p50Ms,
        row.p99Ms,
        row.cpuUsPerRequest.toFixed(1),
        row.rssMb.toFixed(0),
        row.simCpuUsPerRequest.toFixed(1),
        row.servicesCpuUsPerRequest?.toFixed(1) ?? '-',
        row.maxStealPct.toFixed(0),
        row.maxOtherPct.toFixed(0),
        failures,
      ]);
    }
  }
  return layout(header, body);
}

/** Targets compared in the ratio table, each against the bare pass-throughs (and the gateway's paths against its chat path). */
const COMPARED = TARGET_NAMES.filter((name) => name !== 'direct' && name !== 'http-proxy-3');

/**
 * Each proxy against the bare pass-throughs' chat rows of the same scenario: CPU per request and throughput, as
 * ratios; the gateway's other paths and the full chain also against the plain gateway's chat path (what the dialect's
 * translation, or the plugins, cost); with services (redis-server, PostgreSQL), the gateway's and theirs together.
 */
export function ratioTable(rows: readonly SummaryRow[], scenarios: readonly string[]): string {
  const header = [
    'scenario',
    'target',
    'CPU / http-proxy-3',
    'CPU / undici',
    'CPU / gateway chat',
    'CPU+services / http-proxy-3',
    'req/s / http-proxy-3',
  ];
  const ratio = (a: number | undefined, b: number | undefined): string =>
    a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}x`;
  const body: Cell[][] = [];
  for (const scenario of scenarios) {
    const proxy = rowFor(rows, 'http-proxy-3', scenario);
    const undici = rowFor(rows, 'undici', scenario);
    const gateway = rowFor(rows, 'gateway', scenario);
    for (const target of COMPARED) {
      const row = rowFor(rows, target, scenario);
      if (row === undefined) continue;
      body.push([
        scenario,
        target,
        ratio(row.cpuUsPerRequest, proxy?.cpuUsPerRequest),
        target === 'undici' ? '-' : ratio(row.cpuUsPerRequest, undici?.cpuUsPerRequest),
        target.startsWith('gateway-') ? ratio(row.cpuUsPerRequest, gateway?.cpuUsPerRequest) : '-',
        row.servicesCpuUsPerRequest === null
          ? '-'
          : ratio(row.cpuUsPerRequest + row.servicesCpuUsPerRequest, proxy?.cpuUsPerRequest),
        ratio(row.rps, proxy?.rps),
      ]);
    }
  }
  return layout(header, body);
}

/**
 * Per target, CPU per request in each scenario and the marginal cost of a chunk (chunkCost): burst and paced, the paced
 * one also as a ratio to http-proxy-3's.
 */
export function chunkTable(rows: readonly SummaryRow[], targets: readonly string[], chunks: number): string {
  const header = [
    'target',
    'nonstream us/req',
    'burst us/req',
    'paced us/req',
    'us/burst chunk',
    'us/paced chunk',
    'paced chunk / http-proxy-3',
  ];
  const bare = chunkCost(rows, 'http-proxy-3', 'stream-paced', chunks);
  const fixed = (value: number | undefined, digits: number): string => value?.toFixed(digits) ?? '-';
  const body: Cell[][] = targets.flatMap((target) => {
    if (rowFor(rows, target, 'nonstream') === undefined) return [];
    const paced = chunkCost(rows, target, 'stream-paced', chunks);
    return [
      [
        target,
        fixed(rowFor(rows, target, 'nonstream')?.cpuUsPerRequest, 1),
        fixed(rowFor(rows, target, 'stream-burst')?.cpuUsPerRequest, 1),
        fixed(rowFor(rows, target, 'stream-paced')?.cpuUsPerRequest, 1),
        fixed(chunkCost(rows, target, 'stream-burst', chunks), 1),
        fixed(paced, 1),
        paced === undefined || bare === undefined ? '-' : `${(paced / bare).toFixed(2)}x`,
      ],
    ];
  });
  return layout(header, body);
}

export function ttfbTable(results: readonly TtfbResult[]): string {
  const header = [
    'concurrency',
    'target',
    'p50 ms',
    'p99 ms',
    'added p50 ms',
    'added p99 ms',
    'over http-proxy-3 p50 ms',
    'samples',
  ];
  const body: Cell[][] = results.map((result) => [
    result.concurrency,
    result.target,
    result.p50Ms.toFixed(3),
    result.p99Ms.toFixed(3),
    signed(result.addedP50Ms),
    signed(result.addedP99Ms),
    result.overProxyP50Ms === null ? '-' : signed(result.overProxyP50Ms),
    result.samples,
  ]);
  return layout(header, body);
}

/** Each process's resident memory after start (before any request), then the memory pass's figures. */
export function memoryTable(idleRssMb: Readonly<Record<string, number>>, memory: MemoryResult | undefined): string {
  const idle = layout(
    ['process', 'idle RSS MB'],
    Object.entries(idleRssMb).map(([name, mb]) => [name, mb.toFixed(0)]),
  );
  if (memory === undefined) return idle;
  const opened = Number.isFinite(memory.allOpenAfterMs)
    ? `all ${memory.streams} open ${(memory.allOpenAfterMs / 1000).toFixed(1)} s after the first request`
    : `at most ${memory.maxOpen} of ${memory.streams} open at once`;
  return [
    idle,
    '',
    `${memory.target}: ${memory.streams} streams (${MEMORY_SCENARIO.about}), ${opened}${memory.failed > 0 ? `, ${memory.failed} failed` : ''}:`,
    `  idle ${memory.idleMb.toFixed(0)} MB | with ${memory.maxOpen} open ${memory.openMb.toFixed(0)} MB (peak ${memory.peakMb.toFixed(0)} MB) | ${SETTLE_S} s after the last ended ${memory.afterMb.toFixed(0)} MB`,
  ].join('\n');
}

/** PASS or MISS per verdict, then the lines to read without a verdict. */
export function verdictLines(verdicts: readonly Verdict[], unjudged: readonly string[] = []): string {
  return [
    ...verdicts.map((verdict) => `${verdict.pass ? 'PASS' : 'MISS'}  ${verdict.goal}: ${verdict.measured}`),
    ...unjudged,
  ].join('\n');
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
}

/** Columns padded to their widest cell; text left, numbers right. */
function layout(header: readonly string[], body: readonly Cell[][]): string {
  const text = [header, ...body.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))))];
  const widths = header.map((_, column) => Math.max(...text.map((row) => row[column]!.length)));
  const numeric = header.map((_, column) =>
    body.every((row) => typeof row[column] === 'number' || /^[-+]?[\d.]+x?$|^-$/.test(String(row[column]))),
  );
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(text[0]!), rule, ...text.slice(1).map(line)].join('\n');
}
