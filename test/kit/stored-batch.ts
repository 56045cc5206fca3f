// A batch record as a test puts it straight into the store: an OpenAI chat batch of the organization's key, made
// now, with the fields a test cares about over it (its status, say).
import { newBatch } from '../../batch/new-batch.js';
import type { BatchRecord } from '../../store/batches.js';

export function storedBatch(id: string, orgId: string, keyId: string, fields: Partial<BatchRecord> = {}): BatchRecord {
  return {
    ...newBatch(
      {
        id,
        orgId,
        keyId,
        api: 'openai',
        endpoint: '/v1/chat/completions',
        inputFileId: null,
        inputObject: 'files/none.jsonl',
        metadata: null,
      },
      Date.now(),
    ),
    ...fields,
  };
}
