// A batch's end: once none of its lines waits or runs, its status moves to where it ended (completed,
// expired, cancelled) with the time of the move. An OpenAI batch first writes its output and error files
// (JSONL in OpenAI's line shape, results.ts), under ids made from the batch's, so that a node finishing the job
// of one that died writes the same files again rather than new ones. The moves are compare-and-set: of nodes
// finalizing at once, one moves the batch, the others find it moved.
import type { BatchStatus } from '../store/batch-schema.js';
import type { LineResult } from '../store/batch-lines.js';
import type { BatchRecord } from '../store/batches.js';
import type { Store } from '../store/store.js';
import { openAiResultLine } from './results.js';
import type { FileStorage } from './storage/file-storage.js';
import { fileObjectKey } from './storage-keys.js';

/** Results read from the store per query while writing the files. */
const RESULTS_PER_READ = 500;

/** Brings the batch to its end; the status it ended in, if this call moved it there. */
export async function finalizeBatch(
  store: Store,
  storage: FileStorage,
  batch: BatchRecord,
  now: number,
): Promise<BatchStatus | undefined> {
  const end = await endOf(store, batch);
  let from = batch.status;
  if (batch.api === 'openai' && from === 'in_progress') {
    if (!(await store.batches.move(batch.id, ['in_progress'], 'finalizing', { finalizing_at: now }))) return undefined;
    from = 'finalizing';
  }
  const files = batch.api === 'openai' ? await writeFiles(store, storage, batch, now) : {};
  const moved = await store.batches.move(batch.id, [from], end, {
    [`${end}_at` as const]: now,
    ended_at: now,
    ...files,
  });
  return moved ? end : undefined;
}

/** Where the batch ends: cancelled if it was asked to, expired if lines ran out of time, else completed. */
async function endOf(store: Store, batch: BatchRecord): Promise<'completed' | 'expired' | 'cancelled'> {
  if (batch.cancellingAt !== null) return 'cancelled';
  const counts = await store.batches.counts(batch.id);
  return counts.expired > 0 ? 'expired' : 'completed';
}

/** Writes the output and error files (each only if it has a line) and records them. */
async function writeFiles(
  store: Store,
  storage: FileStorage,
  batch: BatchRecord,
  now: number,
): Promise<{ output_file_id?: string; error_file_id?: string }> {
  const ids = { output: `file_${batch.id}_output`, error: `file_${batch.id}_errors` };
  const counted = { output: 0, error: 0 };
  const written: { output_file_id?: string; error_file_id?: string } = {};
  for (const kind of ['output', 'error'] as const) {
    const key = fileObjectKey(batch.orgId, ids[kind]);
    const bytes = await storage.write(key, resultLines(store, batch, kind, counted));
    if (counted[kind] === 0) {
      await storage.delete(key);
      continue;
    }
    await store.batchFiles.add({
      id: ids[kind],
      orgId: batch.orgId,
      purpose: 'batch_output',
      filename: kind === 'output' ? `${batch.id}_output.jsonl` : `${batch.id}_error.jsonl`,
      bytes,
      lines: counted[kind],
      createdAt: now,
      expiresAt: null,
    });
    if (kind === 'output') written.output_file_id = ids.output;
    else written.error_file_id = ids.error;
  }
  return written;
}

/** The batch's result lines that go to one file, in input order, each ending in a line break. */
async function* resultLines(
  store: Store,
  batch: BatchRecord,
  kind: 'output' | 'error',
  counted: Record<'output' | 'error', number>,
): AsyncGenerator<Buffer> {
  for (let from = 0; ;) {
    const page: LineResult[] = await store.batchLines.results(batch.id, from, RESULTS_PER_READ);
    if (page.length === 0) return;
    const lines: string[] = [];
    for (const line of page) {
      const result = openAiResultLine(batch.id, line);
      if (result.file === kind) lines.push(result.text);
    }
    counted[kind] += lines.length;
    if (lines.length > 0) yield Buffer.from(`${lines.join('\n')}\n`);
    from = page.at(-1)!.lineNo + 1;
  }
}
