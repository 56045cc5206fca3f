// The console report: the matrix, the ratios to the bare pass-through, the time to first byte, the verdicts.
import { rowFor, type SummaryRow, type Verdict } from './summary.js';
import type { TtfbResult } from './ttfb.js';

type Cell = string | number | null;

export function matrixTable(rows: readonly SummaryRow[], scenarios: readonly string[], targets: readonly string[]): string {
  const header = ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'CPU us/chunk', 'RSS MB', 'sim us/req', 'steal %', 'errors'];
  const body: Cell[][] = [];
  for (const scenario of scenarios) {
    for (const target of targets) {
      const row = rowFor(rows, target, scenario);
      if (row === undefined) continue;
      const failures = row.errors + row.non2xx + row.timeouts;
      body.push([scenario, target, row.rps.toFixed(0), row.p50Ms, row.p99Ms, row.cpuUsPerRequest.toFixed(1), row.cpuUsPerChunk?.toFixed(2) ?? '-', row.rssMb.toFixed(0), row.simCpuUsPerRequest.toFixed(1), row.maxStealPct.toFixed(0), failures]);
    }
  }
  return layout(header, body);
}

/** The gateway against each bare pass-through: CPU per request and throughput, as ratios. */
export function ratioTable(rows: readonly SummaryRow[], scenarios: readonly string[]): string {
  const header = ['scenario', 'gateway/http-proxy-3 CPU', 'gateway/undici CPU', 'undici/http-proxy-3 CPU', 'gateway/http-proxy-3 req/s'];
  const body: Cell[][] = scenarios.map((scenario) => {
    const gateway = rowFor(rows, 'gateway', scenario);
    const proxy = rowFor(rows, 'http-proxy-3', scenario);
    const undici = rowFor(rows, 'undici', scenario);
    const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}x`);
    return [
      scenario,
      ratio(gateway?.cpuUsPerRequest, proxy?.cpuUsPerRequest),
      ratio(gateway?.cpuUsPerRequest, undici?.cpuUsPerRequest),
      ratio(undici?.cpuUsPerRequest, proxy?.cpuUsPerRequest),
      ratio(gateway?.rps, proxy?.rps),
    ];
  });
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

export function verdictLines(verdicts: readonly Verdict[]): string {
  return verdicts.map((verdict) => `${verdict.pass ? 'PASS' : 'MISS'}  ${verdict.goal}: ${verdict.measured}`).join('\n');
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
}

/** Columns padded to their widest cell; text left, numbers right. */
function layout(header: readonly string[], body: readonly Cell[][]): string {
  const text = [header, ...body.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))))];
  const widths = header.map((_, column) => Math.max(...text.map((row) => row[column]!.length)));
  const numeric = header.map((_, column) => body.every((row) => typeof row[column] === 'number' || /^[-+]?[\d.]+x?$|^-$/.test(String(row[column]))));
  const line = (row: readonly string[]): string => row.map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(text[0]!), rule, ...text.slice(1).map(line)].join('\n');
}
