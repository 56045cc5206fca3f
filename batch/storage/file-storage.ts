// Where the batch APIs keep bytes: uploaded files, the requests of an Anthropic batch, output files. The
// records (store/batch-files.ts, store/batches.ts) say what exists; this holds the content, addressed by a key
// such as `files/<org>/<file id>.jsonl`. The data directory by default (directory-storage.ts); in a fleet, a
// directory every node mounts (NFS, a cloud file share), so any node reads what another wrote.
import type { Readable } from 'node:stream';

export interface FileStorage {
  /** Writes the object from the chunks as they come (replacing any); its size once written whole. */
  write(key: string, chunks: AsyncIterable<Uint8Array>): Promise<number>;
  /** The object's bytes as a stream; a missing object fails the stream with ENOENT. */
  read(key: string): Readable;
  /** `length` bytes of the object from `offset` (one line of a batch's input). */
  readRange(key: string, offset: number, length: number): Promise<Buffer>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
}
