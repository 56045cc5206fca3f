// How an export's rows are written, as text, one piece at a time: a CSV with a header and a final
// totals row, or one JSON object whose `rows` array is written as it goes and whose `totals` comes last.
import { checkedMicros } from '../../store/money.js';
import { formatCredits } from '../../store/credits.js';
import { csvRecord } from './csv-field.js';
import { isoDay, type ExportFormat, type ExportRequest } from './export-request.js';
import { groupColumns, SUM_COLUMNS, type UsageGroupRow } from './usage-pages.js';

export type UsageSums = Omit<UsageGroupRow, 'values'>;

export interface ExportEncoder {
  readonly contentType: string;
  head(): string;
  row(row: UsageGroupRow): string;
  /** The end of the document, with the totals of every row written. */
  tail(totals: UsageSums): string;
}

/** What the document says about itself (JSON's head; the CSV's file name). */
export interface ExportMeta {
  orgId: string;
  request: ExportRequest;
}

const SUM_NAMES = ['requests', ...SUM_COLUMNS] as const;

export function exportEncoder(format: ExportFormat, meta: ExportMeta): ExportEncoder {
  const columns = groupColumns(meta.request.groups);
  return format === 'csv' ? csvEncoder(columns) : jsonEncoder(columns, meta);
}

export function emptySums(): UsageSums {
  return {
    requests: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    searches: 0,
    cost_micros: 0,
  };
}

/** Adds a row's sums into `totals`; money stays a safe integer. */
export function addSums(totals: UsageSums, row: UsageSums): void {
  for (const name of SUM_NAMES) totals[name] += row[name];
  checkedMicros(totals.cost_micros, "the export's total cost");
}

function csvEncoder(columns: readonly string[]): ExportEncoder {
  return {
    contentType: 'text/csv; charset=utf-8',
    head: () => csvRecord([...columns, ...SUM_NAMES, 'cost']),
    row: (row) =>
      csvRecord([...columns.map((column) => shownValue(column, row.values[column]) ?? ''), ...sumFields(row)]),
    // The totals row: `total` in the first column, the other groups' columns empty.
    tail: (totals) => csvRecord([...columns.map((_, index) => (index === 0 ? 'total' : '')), ...sumFields(totals)]),
  };
}

function jsonEncoder(columns: readonly string[], meta: ExportMeta): ExportEncoder {
  let rows = 0;
  const { request } = meta;
  return {
    contentType: 'application/json; charset=utf-8',
    head: () =>
      `{"org_id":${JSON.stringify(meta.orgId)},"from":"${isoDay(request.fromDay)}","to":"${isoDay(request.toDay)}",` +
      `"group_by":${JSON.stringify(request.groups)},"rows":[`,
    row: (row) => {
      const shown = Object.fromEntries(columns.map((column) => [column, shownValue(column, row.values[column])]));
      return `${rows++ === 0 ? '\n' : ',\n'}${JSON.stringify({ ...shown, ...sumsJson(row) })}`;
    },
    tail: (totals) => `\n],"totals":${JSON.stringify(sumsJson(totals))}}\n`,
  };
}

/** A group's value as shown: a day as YYYY-MM-DD; no creator recorded or no model is null. */
function shownValue(column: string, value: string | number | null | undefined): string | null {
  if (column === 'day') return isoDay(Number(value));
  return value === '' || value === null || value === undefined ? null : String(value);
}

function sumFields(sums: UsageSums): Array<string | number> {
  return [...SUM_NAMES.map((name) => sums[name]), formatCredits(sums.cost_micros)];
}

function sumsJson(sums: UsageSums): Record<string, string | number> {
  return { ...Object.fromEntries(SUM_NAMES.map((name) => [name, sums[name]])), cost: formatCredits(sums.cost_micros) };
}
