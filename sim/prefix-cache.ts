// vLLM's automatic prefix caching, reduced to its bookkeeping: a sequence is cut into full blocks
// of 16 tokens, each block keyed by a hash chained to the block before it, so a block hits only
// when the whole prefix up to it is identical. A prompt's cached tokens are its leading blocks
// already seen × 16, capped so that at least one prompt token is computed (as vLLM does). The
// blocks of the prompt are cached on admission, those of the answer when it completes (all but its
// last token, which never went through the model). The least recently used blocks are evicted.
import { hashBlock } from './hash.js';
import { Lru } from './lru.js';

export const BLOCK_SIZE = 16;

export class PrefixCache {
  private readonly blocks: Lru<number, true>;
  private readonly memo = new WeakMap<readonly number[], number[]>();

  constructor(capacityBlocks = 65_536) {
    this.blocks = new Lru(capacityBlocks);
  }

  /** Cached tokens for this prompt; the prompt's blocks are cached from now on. */
  admit(promptIds: readonly number[]): number {
    const hashes = this.hashes(promptIds);
    const usable = Math.floor((promptIds.length - 1) / BLOCK_SIZE);
    let hits = 0;
    while (hits < usable && hits < hashes.length && this.blocks.has(hashes[hits] ?? -1)) hits++;
    for (const h of hashes) this.blocks.set(h, true);
    return hits * BLOCK_SIZE;
  }

  /** Caches the blocks of prompt + answer once the answer is complete. */
  complete(promptIds: readonly number[], outputIds: readonly number[]): void {
    const promptHashes = this.hashes(promptIds);
    const done = promptHashes.length * BLOCK_SIZE;
    const tail = [...promptIds.slice(done), ...outputIds.slice(0, -1)];
    let parent = promptHashes[promptHashes.length - 1] ?? 0;
    for (let start = 0; start + BLOCK_SIZE <= tail.length; start += BLOCK_SIZE) {
      parent = hashBlock(parent, tail, start, start + BLOCK_SIZE);
      this.blocks.set(parent, true);
    }
  }

  private hashes(ids: readonly number[]): number[] {
    const known = this.memo.get(ids);
    if (known) return known;
    const out: number[] = [];
    let parent = 0;
    for (let start = 0; start + BLOCK_SIZE <= ids.length; start += BLOCK_SIZE) {
      parent = hashBlock(parent, ids, start, start + BLOCK_SIZE);
      out.push(parent);
    }
    this.memo.set(ids, out);
    return out;
  }
}
