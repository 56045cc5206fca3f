// The grouped sums of an export, read from the usage ledger a page at a time: keyset pagination on the
// groups' values (ORDER BY them, and the next page starts after the last row's), so no query holds more
// than a page and a client that stops reading stops the queries. Every row of every state counts: a held
// row (a request still running) costs 0 until it settles, so the sums of cost equal the ledger's.
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../store/schema.js';
import { DAY_MS, type ExportGroup, type ExportRequest } from './export-request.js';

/** Whose rows: an organization's, and only the keys one member made when `createdBy` is set. */
export interface ExportScope {
  orgId: string;
  createdBy?: string;
}

/** One group's sums; `values` are the groups' values in the order of the request (text or a day number). */
export interface UsageGroupRow {
  values: Record<string, string | number | null>;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  searches: number;
  cost_micros: number;
}

export const SUM_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'searches',
  'cost_micros',
] as const;

export const DEFAULT_PAGE_ROWS = 1000;

/**
 * What a group is in SQL: the expressions it is keyed (and ordered) by, never null so that row-value
 * comparison works; and the columns it shows, which the key determines (a key's name by its id).
 */
interface GroupSql {
  key: Array<{ alias: string; expression: RawBuilder<unknown> }>;
  shown: Array<{ alias: string; expression: RawBuilder<unknown> }>;
}

const GROUP_SQL: Record<ExportGroup, GroupSql> = {
  day: { key: [{ alias: 'day', expression: sql`usage.created_at / ${sql.lit(DAY_MS)}` }], shown: [] },
  key: {
    key: [{ alias: 'key_id', expression: sql`usage.key_id` }],
    shown: [{ alias: 'key_name', expression: sql`api_keys.name` }],
  },
  // Keys made by the operator, the CLI or the system say so; keys made before migration 0005 have ''.
  member: { key: [{ alias: 'member', expression: sql`coalesce(api_keys.created_by, '')` }], shown: [] },
  // The model the request named; rows written before migration 0006 have none: ''.
  model: { key: [{ alias: 'model', expression: sql`coalesce(usage.model, '')` }], shown: [] },
  dialect: { key: [{ alias: 'dialect', expression: sql`usage.dialect` }], shown: [] },
};

/** The columns the groups show, in the request's order (`key` shows two: key_id, key_name). */
export function groupColumns(groups: readonly ExportGroup[]): string[] {
  return groups.flatMap((group) => [...GROUP_SQL[group].key, ...GROUP_SQL[group].shown].map((part) => part.alias));
}

/** The export's rows, page by page, in the order of the groups' values. */
export async function* usagePages(
  db: Kysely<Database>,
  scope: ExportScope,
  request: ExportRequest,
  pageRows: number = DEFAULT_PAGE_ROWS,
): AsyncGenerator<UsageGroupRow[]> {
  const keys = request.groups.flatMap((group) => GROUP_SQL[group].key);
  const columns = [...keys, ...request.groups.flatMap((group) => GROUP_SQL[group].shown)];
  let after: unknown[] | undefined;
  for (;;) {
    let query = baseQuery(db, scope, request);
    // A group's rows all share its key, so "after the last group" filters rows, before they are summed.
    if (after !== undefined)
      query = query.where(
        rowValue(keys.map((key) => key.expression)),
        '>',
        rowValue(after.map((value) => sql.val(value))),
      );
    const page = await query
      .select(columns.map(({ alias, expression }) => expression.as(alias)))
      .select((eb) => [
        eb.fn.countAll<number>().as('requests'),
        ...SUM_COLUMNS.map((column) => eb.fn.sum<number>(`usage.${column}`).as(column)),
      ])
      .groupBy(columns.map((column) => column.expression))
      .$call((q) => keys.reduce((ordered, key) => ordered.orderBy(key.expression), q))
      .limit(pageRows)
      .execute();
    if (page.length > 0) yield page.map((row) => rowOf(row as Record<string, unknown>, columns));
    if (page.length < pageRows) return;
    const last = page[page.length - 1] as Record<string, unknown>;
    after = keys.map((key) => last[key.alias]);
  }
}

function baseQuery(db: Kysely<Database>, scope: ExportScope, request: ExportRequest) {
  return db
    .selectFrom('usage')
    .leftJoin('api_keys', 'api_keys.id', 'usage.key_id')
    .where('usage.org_id', '=', scope.orgId)
    .where('usage.created_at', '>=', request.fromDay * DAY_MS)
    .where('usage.created_at', '<', (request.toDay + 1) * DAY_MS)
    .$if(scope.createdBy !== undefined, (query) => query.where('api_keys.created_by', '=', scope.createdBy!));
}

/** `(a, b, …)`: compared element by element, as ORDER BY sorts them (both dialects). */
function rowValue(parts: ReadonlyArray<Expression<unknown>>): Expression<unknown> {
  return sql`(${sql.join(parts)})`;
}

/** Drivers may hand sums back as strings or bigints, hence Number. */
function rowOf(row: Record<string, unknown>, columns: ReadonlyArray<{ alias: string }>): UsageGroupRow {
  const values: UsageGroupRow['values'] = {};
  for (const { alias } of columns) {
    const value = row[alias];
    values[alias] = value === null || value === undefined ? null : typeof value === 'string' ? value : Number(value);
  }
  return {
    values,
    requests: Number(row.requests),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    cache_read_tokens: Number(row.cache_read_tokens ?? 0),
    cache_write_tokens: Number(row.cache_write_tokens ?? 0),
    searches: Number(row.searches ?? 0),
    cost_micros: Number(row.cost_micros ?? 0),
  };
}
