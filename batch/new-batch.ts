// A batch as it is made, by either API: in progress from the moment it is made, with its 24-hour window.
import type { BatchRecord } from '../store/batches.js';

/** The one completion window there is: 24 hours. */
export const COMPLETION_WINDOW_MS = 86_400_000;

export type NewBatch = Pick<
  BatchRecord,
  'id' | 'orgId' | 'keyId' | 'api' | 'endpoint' | 'inputFileId' | 'inputObject' | 'metadata'
>;

export function newBatch(batch: NewBatch, now: number): BatchRecord {
  return {
    ...batch,
    status: 'in_progress',
    errors: null,
    outputFileId: null,
    errorFileId: null,
    createdAt: now,
    expiresAt: now + COMPLETION_WINDOW_MS,
    inProgressAt: now,
    finalizingAt: null,
    completedAt: null,
    failedAt: null,
    expiredAt: null,
    cancellingAt: null,
    cancelledAt: null,
    endedAt: null,
  };
}
