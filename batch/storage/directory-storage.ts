// File storage in a directory (file-storage.ts): one file per object, written to a temporary name and renamed
// into place, so a reader never sees half an object and a node killed mid-write leaves only a temporary file.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStorage } from './file-storage.js';

export class DirectoryStorage implements FileStorage {
  readonly #root: string;

  constructor(root: string) {
    this.#root = resolve(root);
  }

  async write(key: string, chunks: AsyncIterable<Uint8Array>): Promise<number> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const partial = `${path}.${randomBytes(6).toString('hex')}.partial`;
    // Opened before the pipeline, so the file exists when a failed write removes it (a stream that opens it itself
    // may create it after the removal, when the source fails first).
    const file = await open(partial, 'wx', 0o600);
    let bytes = 0;
    try {
      await pipeline(
        chunks,
        async function* (source: AsyncIterable<Uint8Array>) {
          for await (const chunk of source) {
            bytes += chunk.byteLength;
            yield chunk;
          }
        },
        file.createWriteStream(),
      );
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return bytes;
  }

  read(key: string): Readable {
    return createReadStream(this.#path(key));
  }

  async readRange(key: string, offset: number, length: number): Promise<Buffer> {
    const file = await open(this.#path(key), 'r');
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await file.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  /** The object's path, never outside the root (keys are made here, but a key is a path all the same). */
  #path(key: string): string {
    const path = resolve(join(this.#root, key));
    if (!path.startsWith(this.#root + sep)) throw new Error(`a storage key outside the storage: ${key}`);
    return path;
  }
}
