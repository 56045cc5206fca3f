// Retention (`batch.retention_days`): a batch that ended that long ago is deleted with its results, its output
// and error files, and (Anthropic) the requests it was made with; an uploaded file is deleted that long after
// its upload (or once the last batch that runs from it has ended). Any node may do it: deleting what another
// node deleted already is no error.
import type { Logger } from 'pino';
import type { Store } from '../store/store.js';
import type { FileStorage } from './storage/file-storage.js';
import { batchInputKey, fileObjectKey } from './storage-keys.js';

/** Records deleted per round, of each kind. */
const PER_ROUND = 100;

export async function deleteExpired(
  store: Store,
  storage: FileStorage,
  now: number,
  retentionMs: number,
  log: Logger,
): Promise<void> {
  const batchIds: string[] = [];
  for (const batch of await store.batches.endedBefore(now - retentionMs, PER_ROUND)) {
    await deleteBatch(store, storage, batch.orgId, batch.id, [batch.outputFileId, batch.errorFileId]);
    batchIds.push(batch.id);
  }
  const fileIds: string[] = [];
  for (const file of await store.batchFiles.expired(now, PER_ROUND)) {
    // An upload a batch still runs from stays until that batch has ended.
    if (await store.batches.readsFile(file.orgId, file.id)) continue;
    await storage.delete(fileObjectKey(file.orgId, file.id));
    await store.batchFiles.delete(file.orgId, file.id);
    fileIds.push(file.id);
  }
  if (batchIds.length + fileIds.length > 0)
    log.info({ batchIds, fileIds }, 'batch retention: ended batches and old files deleted');
}

/** Deletes a batch, its lines, the files it wrote and its stored requests (an Anthropic batch's). */
export async function deleteBatch(
  store: Store,
  storage: FileStorage,
  orgId: string,
  batchId: string,
  outputFiles: ReadonlyArray<string | null>,
): Promise<void> {
  for (const fileId of outputFiles) {
    if (fileId === null) continue;
    await storage.delete(fileObjectKey(orgId, fileId));
    await store.batchFiles.delete(orgId, fileId);
  }
  await storage.delete(batchInputKey(orgId, batchId));
  await store.batches.delete(batchId);
}
