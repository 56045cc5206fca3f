// The batch APIs of one node, put together: the file storage (`batch.storage_dir`, else the data directory's
// batch-files folder), the handlers of the routes, and the worker that runs the lines.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BatchConfig } from '../config/types.js';
import type { WireProfile } from '../core/dialect.js';
import type { ExchangeRuntime, ResourceApi } from '../proxy/exchange/run.js';
import type { Router } from '../proxy/routing/router.js';
import type { Route } from '../core/route.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { BatchMetrics } from '../telemetry/metrics.js';
import { batchApi } from './batch-api.js';
import type { BatchContext } from './batch-context.js';
import { StoreLineQueue, type LineQueue } from './line-queue.js';
import { DirectoryStorage } from './storage/directory-storage.js';
import { BatchWorker } from './worker.js';

const DAY_MS = 86_400_000;

export interface BatchServiceParts {
  config: BatchConfig;
  dataDir: string;
  store: () => Promise<Store>;
  /** The node's exchange runtime (made after this: read when a line runs). */
  runtime: () => ExchangeRuntime;
  router: Router;
  servesModel: (model: string) => boolean;
  upstreamFree: () => boolean;
  upstreamCalls: () => number;
  wire: WireProfile;
  log: Logger;
  metrics: BatchMetrics | undefined;
  now?: () => number;
}

export interface BatchService {
  api: ResourceApi;
  worker: BatchWorker;
}

export async function batchService(parts: BatchServiceParts): Promise<BatchService> {
  const { config } = parts;
  const store = await parts.store();
  const storage = new DirectoryStorage(config.storage_dir ?? join(parts.dataDir, 'batch-files'));
  const now = parts.now ?? Date.now;
  const routeOf = (endpoint: string): Route | undefined => {
    const match = parts.router.match('POST', endpoint);
    return match.found && match.route.kind === 'generate' && match.route.dialect !== undefined
      ? match.route
      : undefined;
  };
  // One node on SQLite takes its lines from the store; a fleet on PostgreSQL through pg-boss (line-queue.ts),
  // loaded only then.
  const owner = newId('node');
  const queue: LineQueue = store.shared
    ? await (
        await import('./pg-boss-queue.js')
      ).PgBossLineQueue.start(store, owner, { leaseMs: config.lease_ms }, parts.log)
    : new StoreLineQueue(store, owner);
  const worker = new BatchWorker(
    {
      store,
      queue,
      storage,
      runtime: parts.runtime,
      routeOf,
      wire: parts.wire,
      upstreamFree: parts.upstreamFree,
      upstreamCalls: parts.upstreamCalls,
      log: parts.log,
      metrics: parts.metrics,
      now,
    },
    {
      concurrency: config.concurrency,
      leaseMs: config.lease_ms,
      pollMs: config.poll_ms,
      retentionMs: config.retention_days * DAY_MS,
    },
  );
  const context: BatchContext = {
    store,
    queue,
    storage,
    limits: config,
    servesModel: parts.servesModel,
    routeOf,
    wake: () => worker.wake(),
    now,
  };
  return { api: batchApi(context), worker };
}
