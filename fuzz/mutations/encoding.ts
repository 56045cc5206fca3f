// Mutations of the content encoding: a gzip body with and without its header, a gzip header on bytes that
// are not gzip, other encodings on plain JSON, and a small gzip body that inflates to 64 MB.
import { gzipSync } from 'node:zlib';
import type { Mutation } from '../fuzz-case.js';
import { bodyBytes } from './bytes.js';

let bomb: Buffer | undefined;

/** 64 MB of JSON text in about 64 KB of gzip: made once per process. */
function gzipBomb(): Buffer {
  bomb ??= gzipSync(
    Buffer.concat([
      Buffer.from('{"model":"qwen3-8b","messages":[{"role":"user","content":"'),
      Buffer.alloc(64 * 1024 * 1024, 'a'),
      Buffer.from('"}]}'),
    ]),
    { level: 9 },
  );
  return bomb;
}

export const contentEncoding: Mutation = {
  name: 'content-encoding',
  stage: 'encoding',
  weight: 5,
  apply(draft, rng) {
    const bytes = bodyBytes(draft);
    switch (rng.int(0, 5)) {
      case 0:
        draft.bytes = gzipSync(bytes);
        draft.headers['content-encoding'] = 'gzip';
        return 'gzip body, gzip header';
      case 1:
        draft.bytes = gzipSync(bytes);
        return 'gzip body, no header';
      case 2:
        draft.headers['content-encoding'] = 'gzip';
        return 'plain body, gzip header';
      case 3: {
        const value = rng.pick(['br', 'deflate', 'compress', 'zstd', 'gzip, br', 'x-unknown']);
        draft.headers['content-encoding'] = value;
        return `plain body, ${value} header`;
      }
      case 4:
        draft.headers['content-encoding'] = rng.pick(['identity', 'IDENTITY']);
        return 'identity';
      default:
        draft.bytes = gzipBomb();
        draft.headers['content-encoding'] = 'gzip';
        return 'gzip bomb (64 MB inflated)';
    }
  },
};
