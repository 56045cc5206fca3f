// Where each kind of object is in the file storage: an organization's files (uploads and outputs) and the
// requests of its Anthropic batches, each under the organization's own folder.

/** An uploaded or output file's bytes. */
export function fileObjectKey(orgId: string, fileId: string): string {
  return `files/${orgId}/${fileId}.jsonl`;
}

/** An Anthropic batch's requests, one JSON line each. */
export function batchInputKey(orgId: string, batchId: string): string {
  return `inputs/${orgId}/${batchId}.jsonl`;
}
