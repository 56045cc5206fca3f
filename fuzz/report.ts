// The text a fuzz run prints: the statuses per route, the classes of findings, and each kept failure with
// its request, its answer and the command that replays it.
import type { CampaignResult, JudgedCase } from './campaign.js';
import { ROUTE_NAMES, ROUTES } from './routes.js';

export function statusTable(result: CampaignResult): string {
  const labels = [...new Set([...result.statuses.values()].flatMap((counts) => [...counts.keys()]))].sort();
  const rows = ROUTE_NAMES.map((route) => {
    const counts = result.statuses.get(route) ?? new Map<string, number>();
    const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
    return [ROUTES[route].path, ...labels.map((label) => String(counts.get(label) ?? 0)), String(total)];
  });
  return table(['route', ...labels, 'total'], rows);
}

export function classesTable(result: CampaignResult): string {
  if (result.classes.size === 0) return '(none)';
  const rows = [...result.classes.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, { count, example, index }]) => [
      ...key.split(' '),
      String(count),
      String(index),
      example.slice(0, 140),
    ]);
  return table(['severity', 'kind', 'route', 'status', 'count', 'case', 'example'], rows);
}

/** One failure, in full enough to file: the request, the answer, what was wrong, how to replay it. */
export function describeFailure(failure: JudgedCase, seed: number): string {
  const { fuzzCase, outcome, findings } = failure;
  const headers = Object.entries(fuzzCase.headers).map(([name, value]) => `    ${name}: ${redact(name, value)}`);
  const answer = outcome.answer;
  return [
    `case ${fuzzCase.index}: POST ${ROUTES[fuzzCase.route].path} (from ${fuzzCase.seed}; ${fuzzCase.mutations.join('; ')})`,
    ...findings.map((finding) => `  ✗ ${finding.kind}: ${finding.detail}`),
    `  request: ${fuzzCase.body.length} bytes${fuzzCase.chunked ? ', chunked' : ''}`,
    ...headers,
    `    body: ${bytesPreview(fuzzCase.body, 300)}`,
    answer === undefined
      ? `  answer: none (${outcome.error}) after ${outcome.ms.toFixed(0)} ms`
      : `  answer: ${answer.status} ${String(answer.headers['content-type'] ?? '')} after ${outcome.ms.toFixed(0)} ms\n    ${bytesPreview(answer.body, 500)}`,
    `  replay: npm run fuzz -- --seed ${seed} --from ${fuzzCase.index} --count 1 --verbose`,
  ].join('\n');
}

export function summaryLine(result: CampaignResult): string {
  const seconds = result.elapsedMs / 1000;
  return `${result.sent} requests (${result.mutated} mutated) in ${seconds.toFixed(1)} s (${(result.sent / seconds).toFixed(0)}/s), ${result.fiveHundreds} with a 5xx, ${result.failedCases} failed the oracle`;
}

/** The fuzzer's own keys are throwaway, but a key is never printed whole. */
function redact(name: string, value: string): string {
  if (name === 'x-api-key' || name === 'authorization')
    return value.replace(/sk-svc-[A-Za-z0-9_-]{8,}/g, (key) => `sk-svc-…${key.slice(-4)}`).slice(0, 120);
  return value.length > 120 ? `${value.slice(0, 60)}… (${value.length} characters)` : value;
}

/** The first bytes as a quoted string, `"` and `\\` escaped, bytes outside printable ASCII as \\xNN; about `limit` characters. */
function bytesPreview(bytes: Buffer, limit: number): string {
  if (bytes.length === 0) return '(empty)';
  let shown = '';
  let used = 0;
  while (used < bytes.length && shown.length < limit) {
    const byte = bytes[used++]!;
    if (byte === 0x22 || byte === 0x5c) shown += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) shown += String.fromCharCode(byte);
    else shown += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `"${shown}"${used < bytes.length ? ` … (${bytes.length} bytes)` : ''}`;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
