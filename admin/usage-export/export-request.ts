// What a usage export asks for, read from its query string: the UTC days `from` to `to` (both included),
// the dimensions it groups by and the format. Every refusal is a 400 that names the parameter.
import { AdminError } from '../errors.js';

export const DAY_MS = 86_400_000;
/** The longest range one export covers, in days. */
export const MAX_EXPORT_DAYS = 366;

/** What rows are grouped by; `key` is the key's id and name, `member` the e-mail that made the key. */
export const EXPORT_GROUPS = ['day', 'key', 'member', 'model', 'dialect'] as const;
export type ExportGroup = (typeof EXPORT_GROUPS)[number];

export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportRequest {
  /** Whole days since the epoch (UTC), `from` <= `to`. */
  fromDay: number;
  toDay: number;
  /** Distinct, in the order asked: the columns' and the rows' order. */
  groups: readonly ExportGroup[];
  format: ExportFormat;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export function exportRequestOf(query: URLSearchParams): ExportRequest {
  const fromDay = dayParam(query, 'from');
  const toDay = dayParam(query, 'to');
  if (fromDay > toDay) throw invalid('from', "'from' must not be after 'to'");
  if (toDay - fromDay + 1 > MAX_EXPORT_DAYS)
    throw invalid('to', `an export covers at most ${MAX_EXPORT_DAYS} days: 'to' is too far after 'from'`);
  return { fromDay, toDay, groups: groupsParam(query.get('group_by')), format: formatParam(query.get('format')) };
}

/** A day as YYYY-MM-DD (UTC). */
export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function dayParam(query: URLSearchParams, name: 'from' | 'to'): number {
  const text = query.get(name);
  if (text === null) throw invalid(name, `'${name}' is required: a UTC day, YYYY-MM-DD`);
  const match = ISO_DAY.exec(text);
  const ms = match === null ? NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2026-02-30 over into March: a real day reads back as itself.
  if (Number.isNaN(ms) || isoDay(ms / DAY_MS) !== text)
    throw invalid(name, `'${name}' must be a UTC day, YYYY-MM-DD, not '${text}'`);
  return ms / DAY_MS;
}

function groupsParam(text: string | null): ExportGroup[] {
  if (text === null) return ['day'];
  const names = text.split(',').map((name) => name.trim());
  const groups: ExportGroup[] = [];
  for (const name of names) {
    if (!(EXPORT_GROUPS as readonly string[]).includes(name))
      throw invalid('group_by', `'group_by' takes ${EXPORT_GROUPS.join(', ')} (comma-separated), not '${name}'`);
    if (groups.includes(name as ExportGroup)) throw invalid('group_by', `'group_by' names '${name}' twice`);
    groups.push(name as ExportGroup);
  }
  return groups;
}

function formatParam(text: string | null): ExportFormat {
  if (text === null) return 'csv';
  if (!(EXPORT_FORMATS as readonly string[]).includes(text))
    throw invalid('format', `'format' must be one of ${EXPORT_FORMATS.join(', ')}`);
  return text as ExportFormat;
}

function invalid(field: string, message: string): AdminError {
  return new AdminError('invalid_request', message, field);
}
