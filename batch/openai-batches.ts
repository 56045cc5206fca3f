// OpenAI's Batch API: create a batch from an uploaded file, retrieve, list, cancel. Making a batch reads its
// input file once more, checks every line against the batch's endpoint, and records one queued line per input
// line (where its body is in the file); the worker runs them (worker.ts). A bad request is a 400 naming the
// field, or the line and its field.
import type { JsonObject } from '../core/canonical.js';
import { GatewayError } from '../core/errors.js';
import type { Exchange } from '../core/exchange.js';
import { printable } from '../core/printable.js';
import type { LiveExchange } from '../proxy/exchange/exchange.js';
import type { Door } from '../proxy/exchange/run.js';
import type { BatchRecord, LineCounts, NewLine } from '../store/batches.js';
import { newId } from '../store/ids.js';
import { callerOf, limitOf, queryOf, seconds, unknownCursor, type BatchContext } from './batch-context.js';
import { checkOpenAiLine, OPENAI_BATCH_ENDPOINTS, type LineChecks } from './input-line.js';
import { jsonlLines } from './jsonl-lines.js';
import { newBatch } from './new-batch.js';
import { fileObjectKey } from './storage-keys.js';

const MAX_METADATA_KEYS = 16;
const MAX_METADATA_KEY = 64;
const MAX_METADATA_VALUE = 512;

/** The Batch object of the API. */
export function batchObject(batch: BatchRecord, counts: LineCounts): JsonObject {
  return {
    id: batch.id,
    object: 'batch',
    endpoint: batch.endpoint,
    errors: (batch.errors ?? null) as JsonObject | null,
    input_file_id: batch.inputFileId,
    completion_window: '24h',
    status: batch.status,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: seconds(batch.createdAt),
    in_progress_at: seconds(batch.inProgressAt),
    expires_at: seconds(batch.expiresAt),
    finalizing_at: seconds(batch.finalizingAt),
    completed_at: seconds(batch.completedAt),
    failed_at: seconds(batch.failedAt),
    expired_at: seconds(batch.expiredAt),
    cancelling_at: seconds(batch.cancellingAt),
    cancelled_at: seconds(batch.cancelledAt),
    request_counts: { total: counts.total, completed: counts.succeeded, failed: counts.errored + counts.expired },
    metadata: batch.metadata,
  };
}

/** POST /v1/batches */
export async function createBatch(context: BatchContext, exchange: LiveExchange, door: Door): Promise<void> {
  const { orgId, keyId } = callerOf(exchange);
  const body = (await door.body(exchange)).body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new GatewayError('GW_ERR_REQUEST_INVALID', 'The body must be a JSON object.');
  const fields = body as Record<string, unknown>;
  const endpoint = fields.endpoint;
  if (
    typeof endpoint !== 'string' ||
    !OPENAI_BATCH_ENDPOINTS.includes(endpoint) ||
    context.routeOf(endpoint) === undefined
  )
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `endpoint must be one this gateway runs batches of: ${OPENAI_BATCH_ENDPOINTS.filter((path) => context.routeOf(path) !== undefined).join(', ')}.`,
      'endpoint',
    );
  if (fields.completion_window !== '24h')
    throw new GatewayError('GW_ERR_REQUEST_INVALID', "completion_window must be '24h'.", 'completion_window');
  const metadata = checkedMetadata(fields.metadata);
  const inputFileId = fields.input_file_id;
  if (typeof inputFileId !== 'string' || inputFileId === '')
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      'input_file_id must be the id of an uploaded file.',
      'input_file_id',
    );
  const file = await context.store.batchFiles.get(orgId, inputFileId);
  if (file === undefined || file.purpose !== 'batch')
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `input_file_id: no file '${printable(inputFileId)}' with purpose 'batch' in your organization.`,
      'input_file_id',
    );
  const unfinished = await context.store.batches.unfinished(orgId);
  if (unfinished >= context.limits.max_unfinished_per_org)
    throw new GatewayError(
      'GW_ERR_QUOTA_EXCEEDED',
      `Your organization has ${unfinished} batches that have not ended, the most it may have (${context.limits.max_unfinished_per_org}).`,
    );
  const inputObject = fileObjectKey(orgId, file.id);
  const checks: LineChecks = { seen: new Set(), servesModel: context.servesModel };
  const lines: NewLine[] = [];
  for await (const line of jsonlLines(context.storage.read(inputObject), context.limits.max_file_bytes)) {
    const checked = checkOpenAiLine(line.text, line.number, checks, endpoint);
    lines.push({ customId: checked.customId, offset: line.offset, length: line.length });
  }
  const batch = newBatch(
    {
      id: newId('batch'),
      orgId,
      keyId,
      api: 'openai',
      endpoint,
      inputFileId: file.id,
      inputObject,
      metadata,
    },
    context.now(),
  );
  await context.queue.create(batch, lines);
  context.wake();
  door.sendJson(200, exchange.responseHeaders, batchObject(batch, await context.store.batches.counts(batch.id)));
}

/** GET /v1/batches/{id} */
export async function retrieveBatch(context: BatchContext, exchange: Exchange, door: Door, id: string): Promise<void> {
  const batch = await callersBatch(context, exchange, id);
  door.sendJson(200, exchange.responseHeaders, batchObject(batch, await context.store.batches.counts(batch.id)));
}

/** POST /v1/batches/{id}/cancel: the batch is `cancelling` until its running lines stop, then `cancelled`. */
export async function cancelBatch(context: BatchContext, exchange: Exchange, door: Door, id: string): Promise<void> {
  const batch = await callersBatch(context, exchange, id);
  if (
    !(await context.store.batches.cancel(batch.id, context.now())) &&
    batch.status !== 'cancelling' &&
    batch.status !== 'cancelled'
  )
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Batch ${batch.id} has ended (${batch.status}): it cannot be cancelled.`,
    );
  context.wake();
  const now = (await context.store.batches.get(batch.orgId, 'openai', batch.id)) ?? batch;
  door.sendJson(200, exchange.responseHeaders, batchObject(now, await context.store.batches.counts(batch.id)));
}

/** GET /v1/batches: `after`, `limit` (1..100, default 20), newest first. */
export async function listBatches(context: BatchContext, exchange: Exchange, door: Door): Promise<void> {
  const query = queryOf(exchange);
  const limit = limitOf(query, 'limit', 20, 100);
  const after = query.get('after') ?? undefined;
  const batches = await context.store.batches.list(callerOf(exchange).orgId, 'openai', { limit, order: 'desc', after });
  if (batches === undefined) throw unknownCursor('after', after!);
  const page = batches.slice(0, limit);
  const data = await Promise.all(
    page.map(async (batch) => batchObject(batch, await context.store.batches.counts(batch.id))),
  );
  door.sendJson(200, exchange.responseHeaders, {
    object: 'list',
    data,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
    has_more: batches.length > limit,
  });
}

async function callersBatch(context: BatchContext, exchange: Exchange, id: string): Promise<BatchRecord> {
  const batch = await context.store.batches.get(callerOf(exchange).orgId, 'openai', id);
  if (batch === undefined)
    throw new GatewayError('GW_ERR_RESOURCE_NOT_FOUND', `No such Batch object: ${printable(id)}.`, 'batch_id');
  return batch;
}

/** OpenAI's metadata: up to 16 keys of up to 64 characters, each a string of up to 512. */
function checkedMetadata(metadata: unknown): Record<string, string> | null {
  if (metadata === undefined || metadata === null) return null;
  if (typeof metadata !== 'object' || Array.isArray(metadata))
    throw new GatewayError('GW_ERR_REQUEST_INVALID', 'metadata must be an object of strings.', 'metadata');
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_KEYS)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `metadata may have ${MAX_METADATA_KEYS} keys at most.`,
      'metadata',
    );
  for (const [key, value] of entries)
    if (key.length > MAX_METADATA_KEY || typeof value !== 'string' || value.length > MAX_METADATA_VALUE)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `metadata.${printable(key)}: keys are up to ${MAX_METADATA_KEY} characters, values strings of up to ${MAX_METADATA_VALUE}.`,
        `metadata.${printable(key)}`,
      );
  return Object.fromEntries(entries) as Record<string, string>;
}
