// The console report: the matrix, the ratios to the bare pass-through, the time to first byte, the verdicts.
import { rowFor, type SummaryRow, type Verdict } from './summary.js';
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
    'CPU us/chunk',
    'RSS MB',
    'sim us/req',
    'redis us/req',
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
        row.cpuUsPerChunk?.toFixed(2) ?? '-',
        row.rssMb.toFixed(0),
        row.simCpuUsPerRequest.toFixed(1),
        row.redisCpuUsPerRequest?.toFixed(1) ?? '-',
        row.maxStealPct.toFixed(0),
        row.maxOtherPct.toFixed(0),
        failures,
      ]);
    }
  }
  return layout(header, body);
}

/** Targets compared in the ratio table, each against the bare pass-throughs (and the gateway's paths against its chat path). */
const COMPARED = ['undici', 'gateway', 'gateway-messages', 'gateway-responses', 'gateway-full', 'gateway-full-redis'];

/**
 * Each proxy against the bare pass-throughs' chat rows of the same scenario: CPU per request and throughput, as
 * ratios; the gateway's other paths and the full chain also against the plain gateway's chat path (what the dialect's
 * translation, or the plugins, cost); with a redis-server, the gateway's and the redis-server's CPU together.
 */
export function ratioTable(rows: readonly SummaryRow[], scenarios: readonly string[]): string {
  const header = [
    'scenario',
    'target',
    'CPU / http-proxy-3',
    'CPU / undici',
    'CPU / gateway chat',
    'CPU+redis / http-proxy-3',
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
        row.redisCpuUsPerRequest === null
          ? '-'
          : ratio(row.cpuUsPerRequest + row.redisCpuUsPerRequest, proxy?.cpuUsPerRequest),
        ratio(row.rps, proxy?.rps),
      ]);
    }
  }
  return layout(header, body);
}

export function ttfbTable(results: readonly TtfbResult[]): string {
  const header = ['concurrency', 'target', 'p50 ms', 'p99 ms', 'added p50 ms', 'added p99 ms', 'samples'];
  const body: Cell[][] = results.map((result) => [
    result.concurrency,
    result.target,
    result.p50Ms.toFixed(3),
    result.p99Ms.toFixed(3),
    signed(result.addedP50Ms),
    signed(result.addedP99Ms),
    result.samples,
  ]);
  return layout(header, body);
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
