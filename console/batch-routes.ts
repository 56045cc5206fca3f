// The member API's batches (docs/console.md): an organization's batches of both batch APIs, newest first in
// keyset pages, each with its status, its lines' counts, its cost so far from the ledger and the key that made
// it; and an ended batch's results as a JSONL download, one line per request in input order, in the shape of
// the API that made it (OpenAI's output- and error-file line, Anthropic's results line). Any member of the
// organization reads them, as any of its keys could through the batch APIs. With batches off
// (`batch.enabled: false`) both routes are a 404 that says so.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { anthropicResultLine, openAiResultLine } from '../batch/results.js';
import { AdminError } from '../admin/errors.js';
import type { AdminRoute } from '../admin/routes.js';
import { formatCredits } from '../store/credits.js';
import { ENDED, type BatchRecord } from '../store/batches.js';
import type { LineResult } from '../store/batch-lines.js';
import type { ApiKeyRecord } from '../store/keys.js';
import type { Store } from '../store/store.js';

export interface BatchRoutesOptions {
  /** Whether the gateway runs batches (`batch.enabled`). */
  enabled: boolean;
  /** The organization the path names, if this request may see it (else it throws: 401, 404). */
  access(req: IncomingMessage, org: string): Promise<{ orgId: string; store: Store }>;
}

const ORG = '([^/]+)';
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
/** Results read from the store per query while streaming a download. */
const RESULTS_PER_READ = 500;

export function batchRoutes(options: BatchRoutesOptions): AdminRoute[] {
  const access = async (req: IncomingMessage, org: string) => {
    const found = await options.access(req, org);
    if (!options.enabled) throw new AdminError('not_found', 'batches are off on this gateway (batch.enabled)');
    return found;
  };
  return [
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/batches$`),
      async handle({ req, params: [orgId], query }) {
        const { orgId: org, store } = await access(req, orgId!);
        const limit = limitParam(query.get('limit'));
        const after = query.get('after') ?? undefined;
        const batches = await store.batches.list(org, undefined, { limit, order: 'desc', after });
        if (batches === undefined)
          throw new AdminError('invalid_request', `'after' names none of this organization's batches`, 'after');
        const page = batches.slice(0, limit);
        const keys = new Map((await store.keys.list(org)).map((key) => [key.id, key]));
        return {
          status: 200,
          body: {
            batches: await Promise.all(page.map((batch) => batchBody(store, batch, keys.get(batch.keyId)))),
            has_more: batches.length > limit,
            last_id: page.at(-1)?.id ?? null,
          },
        };
      },
    },
    {
      method: 'GET',
      path: new RegExp(`^/console/v1/orgs/${ORG}/batches/([^/]+)/results$`),
      async handle({ req, params: [orgId, batchId] }) {
        const { orgId: org, store } = await access(req, orgId!);
        const batch = await store.batches.byId(batchId!);
        // Another organization's batch is not found here either.
        if (batch === undefined || batch.orgId !== org)
          throw new AdminError('batch_not_found', `no batch '${batchId}'`);
        if (!ENDED.includes(batch.status))
          throw new AdminError(
            'batch_not_ended',
            `batch '${batch.id}' has not ended (${batch.status}): no results yet`,
          );
        return {
          status: 200,
          headers: {
            'content-type': 'application/x-jsonl',
            'content-disposition': `attachment; filename="${batch.id}_results.jsonl"`,
          },
          write: (res) => pipeline(Readable.from(resultLines(store, batch)), res),
        };
      },
    },
  ];
}

/** A batch as the console lists it; `key` the key that made it (undefined: not found any more). */
async function batchBody(store: Store, batch: BatchRecord, key: ApiKeyRecord | undefined) {
  const [counts, cost] = await Promise.all([store.batches.counts(batch.id), store.batches.cost(batch.id)]);
  return {
    id: batch.id,
    api: batch.api,
    endpoint: batch.endpoint,
    status: batch.status,
    ended: ENDED.includes(batch.status),
    created_at: new Date(batch.createdAt).toISOString(),
    ended_at: batch.endedAt === null ? null : new Date(batch.endedAt).toISOString(),
    request_counts: {
      total: counts.total,
      queued: counts.queued,
      running: counts.running,
      succeeded: counts.succeeded,
      errored: counts.errored,
      canceled: counts.canceled,
      expired: counts.expired,
    },
    cost: formatCredits(cost),
    cost_micros: cost,
    key: { id: batch.keyId, name: key?.name ?? null, last4: key?.last4 ?? null },
  };
}

/** The batch's results, one line per request in input order, in its API's shape, each ending in a line break. */
async function* resultLines(store: Store, batch: BatchRecord): AsyncGenerator<Buffer> {
  const lineOf = (line: LineResult): string =>
    batch.api === 'openai' ? openAiResultLine(batch.id, line).text : anthropicResultLine(line);
  for (let from = 0; ;) {
    const page = await store.batchLines.results(batch.id, from, RESULTS_PER_READ);
    if (page.length === 0) return;
    yield Buffer.from(page.map((line) => `${lineOf(line)}\n`).join(''));
    from = page.at(-1)!.lineNo + 1;
  }
}

/** `limit`: a page of 1 to 100 batches, 20 when absent. */
function limitParam(text: string | null): number {
  if (text === null) return DEFAULT_LIMIT;
  const limit = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT))
    throw new AdminError('invalid_request', `'limit' must be a whole number from 1 to ${MAX_LIMIT}`, 'limit');
  return limit;
}
