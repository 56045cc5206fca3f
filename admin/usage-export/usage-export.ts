// The answer to an export request (admin API and member API alike): its headers, then the document
// written page by page from the ledger (usage-pages.ts → export-encoder.ts → export-writer.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { RouteAnswer } from '../routes.js';
import { exportEncoder } from './export-encoder.js';
import { isoDay, type ExportRequest } from './export-request.js';
import { writeExport } from './export-writer.js';
import { DEFAULT_PAGE_ROWS, usagePages, type ExportScope } from './usage-pages.js';

export function usageExportAnswer(
  db: Kysely<Database>,
  scope: ExportScope,
  request: ExportRequest,
  pageRows: number = DEFAULT_PAGE_ROWS,
): RouteAnswer {
  const encoder = exportEncoder(request.format, { orgId: scope.orgId, request });
  const file = `usage-${scope.orgId}-${isoDay(request.fromDay)}-${isoDay(request.toDay)}.${request.format}`;
  return {
    status: 200,
    headers: { 'content-type': encoder.contentType, 'content-disposition': `attachment; filename="${file}"` },
    write: (res) => writeExport(res, usagePages(db, scope, request, pageRows), encoder),
  };
}
