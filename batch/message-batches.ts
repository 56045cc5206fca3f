// Anthropic's Message Batches: create (the requests in the body), retrieve, list, cancel, delete, results.
// The requests are checked (input-line.ts), written to storage as one JSON line each and recorded as queued
// lines like an OpenAI batch's; they run as POST /v1/messages. The results are a JSONL stream, in the order of
// the requests, at the batch's `results_url` once it has ended.
import { Readable } from 'node:stream';
import type { JsonObject } from '../core/canonical.js';
import { GatewayError } from '../core/errors.js';
import type { Exchange } from '../core/exchange.js';
import { printable } from '../core/printable.js';
import type { LiveExchange } from '../proxy/exchange/exchange.js';
import type { Door } from '../proxy/exchange/run.js';
import { ENDED, type BatchRecord, type LineCounts, type NewLine } from '../store/batches.js';
import { newId } from '../store/ids.js';
import { callerOf, limitOf, queryOf, unknownCursor, type BatchContext } from './batch-context.js';
import { checkAnthropicRequest, type LineChecks } from './input-line.js';
import { newBatch } from './new-batch.js';
import { deleteBatch } from './retention.js';
import { anthropicResultLine } from './results.js';
import { batchInputKey } from './storage-keys.js';

const ENDPOINT = '/v1/messages';
/** Results read from the store per query while streaming them. */
const RESULTS_PER_READ = 500;

/** The MessageBatch object; `base` is where the gateway is reached (the results' URL is absolute). */
export function messageBatchObject(batch: BatchRecord, counts: LineCounts, base: string): JsonObject {
  const ended = ENDED.includes(batch.status);
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : batch.status === 'cancelling' ? 'canceling' : 'in_progress',
    request_counts: {
      processing: counts.queued + counts.running,
      succeeded: counts.succeeded,
      errored: counts.errored,
      canceled: counts.canceled,
      expired: counts.expired,
    },
    ended_at: iso(batch.endedAt),
    created_at: iso(batch.createdAt),
    expires_at: iso(batch.expiresAt),
    archived_at: null,
    cancel_initiated_at: iso(batch.cancellingAt),
    results_url: ended ? `${base}${ENDPOINT}/batches/${batch.id}/results` : null,
  };
}

/** POST /v1/messages/batches */
export async function createMessageBatch(context: BatchContext, exchange: LiveExchange, door: Door): Promise<void> {
  const { orgId, keyId } = callerOf(exchange);
  if (context.routeOf(ENDPOINT) === undefined)
    throw new GatewayError('GW_ERR_ROUTE_NOT_ENABLED', 'This gateway does not serve POST /v1/messages.');
  const body = (await door.body(exchange)).body;
  const requests = (body as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > context.limits.max_lines)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `requests must be an array of 1 to ${context.limits.max_lines} requests.`,
      'requests',
    );
  const checks: LineChecks = { seen: new Set(), servesModel: context.servesModel };
  const checked = requests.map((request, index) => checkAnthropicRequest(request, index, checks));
  const unfinished = await context.store.batches.unfinished(orgId);
  if (unfinished >= context.limits.max_unfinished_per_org)
    throw new GatewayError(
      'GW_ERR_QUOTA_EXCEEDED',
      `Your organization has ${unfinished} batches that have not ended, the most it may have (${context.limits.max_unfinished_per_org}).`,
    );
  const id = newId('msgbatch');
  const inputObject = batchInputKey(orgId, id);
  // One JSON line per request, and where each is: what a line's run reads back.
  const lines: NewLine[] = [];
  let offset = 0;
  const encoded = requests.map((request: { params: unknown }, index) => {
    const text = Buffer.from(JSON.stringify({ custom_id: checked[index]!.customId, params: request.params }));
    lines.push({ customId: checked[index]!.customId, offset, length: text.length });
    offset += text.length + 1;
    return Buffer.concat([text, NEWLINE]);
  });
  await context.storage.write(inputObject, Readable.from(encoded));
  const batch = newBatch(
    { id, orgId, keyId, api: 'anthropic', endpoint: ENDPOINT, inputFileId: null, inputObject, metadata: null },
    context.now(),
  );
  await context.queue.create(batch, lines);
  context.wake();
  door.sendJson(
    200,
    exchange.responseHeaders,
    messageBatchObject(batch, await context.store.batches.counts(id), baseUrlOf(exchange)),
  );
}

/** GET /v1/messages/batches/{id} */
export async function retrieveMessageBatch(
  context: BatchContext,
  exchange: Exchange,
  door: Door,
  id: string,
): Promise<void> {
  const batch = await callersBatch(context, exchange, id);
  door.sendJson(200, exchange.responseHeaders, await objectOf(context, exchange, batch));
}

/** POST /v1/messages/batches/{id}/cancel */
export async function cancelMessageBatch(
  context: BatchContext,
  exchange: Exchange,
  door: Door,
  id: string,
): Promise<void> {
  const batch = await callersBatch(context, exchange, id);
  // A batch still processing moves to canceling; one canceling or ended already (perhaps since it was read:
  // the move is compare-and-set) is answered as it is now.
  if (await context.store.batches.cancel(batch.id, context.now())) context.wake();
  door.sendJson(
    200,
    exchange.responseHeaders,
    await objectOf(context, exchange, await callersBatch(context, exchange, id)),
  );
}

/** DELETE /v1/messages/batches/{id}: only a batch that has ended. */
export async function deleteMessageBatch(
  context: BatchContext,
  exchange: Exchange,
  door: Door,
  id: string,
): Promise<void> {
  const batch = await callersBatch(context, exchange, id);
  if (!ENDED.includes(batch.status))
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Batch ${batch.id} is still processing: cancel it, and delete it once it has ended.`,
    );
  await deleteBatch(context.store, context.storage, batch.orgId, batch.id, []);
  door.sendJson(200, exchange.responseHeaders, { id: batch.id, type: 'message_batch_deleted' });
}

/** GET /v1/messages/batches: `limit` (1..1000, default 20), `after_id`, newest first. */
export async function listMessageBatches(context: BatchContext, exchange: Exchange, door: Door): Promise<void> {
  const query = queryOf(exchange);
  const limit = limitOf(query, 'limit', 20, 1000);
  if (query.get('before_id') !== null)
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      'before_id is not supported here: page with after_id.',
      'before_id',
    );
  const { orgId } = callerOf(exchange);
  const after = query.get('after_id') ?? undefined;
  const batches = await context.store.batches.list(orgId, 'anthropic', { limit, order: 'desc', after });
  if (batches === undefined) throw unknownCursor('after_id', after!);
  const page = batches.slice(0, limit);
  const data = await Promise.all(page.map((batch) => objectOf(context, exchange, batch)));
  door.sendJson(200, exchange.responseHeaders, {
    data,
    has_more: batches.length > limit,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  });
}

/** GET /v1/messages/batches/{id}/results: JSONL, one result per request, in their order. */
export async function messageBatchResults(
  context: BatchContext,
  exchange: Exchange,
  door: Door,
  id: string,
): Promise<void> {
  const batch = await callersBatch(context, exchange, id);
  if (!ENDED.includes(batch.status))
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `Batch ${batch.id} has not ended: its results are not ready.`);
  const store = context.store;
  async function* results(): AsyncGenerator<Buffer> {
    for (let from = 0; ;) {
      const page = await store.batchLines.results(batch.id, from, RESULTS_PER_READ);
      if (page.length === 0) return;
      yield Buffer.from(page.map((line) => `${anthropicResultLine(line)}\n`).join(''));
      from = page.at(-1)!.lineNo + 1;
    }
  }
  await door.sendBytes(
    200,
    { ...exchange.responseHeaders, 'content-type': 'application/x-jsonl' },
    Readable.from(results()),
  );
}

async function callersBatch(context: BatchContext, exchange: Exchange, id: string): Promise<BatchRecord> {
  const batch = await context.store.batches.get(callerOf(exchange).orgId, 'anthropic', id);
  if (batch === undefined)
    throw new GatewayError('GW_ERR_RESOURCE_NOT_FOUND', `No such message batch: ${printable(id)}.`, 'message_batch_id');
  return batch;
}

async function objectOf(context: BatchContext, exchange: Exchange, batch: BatchRecord): Promise<JsonObject> {
  return messageBatchObject(batch, await context.store.batches.counts(batch.id), baseUrlOf(exchange));
}

/** Where the client reached the gateway: its Host, over HTTPS if a proxy in front says so. */
function baseUrlOf(exchange: Exchange): string {
  const host = exchange.req.headers.host ?? 'localhost';
  const proto = exchange.req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

const NEWLINE = Buffer.from('\n');
