// vLLM's automatic prefix caching, reduced to its bookkeeping: a sequence is cut into full blocks
// of 16 tokens, each block keyed by a hash chained to the block before it, so a block hits only
// when the whole prefix up to it is identical. A prompt's cached tokens are its leading blocks
// already seen × 16, capped so that at least one prompt token is computed (as vLLM does). The
// blocks of the prompt are cached on admission, those of the answer when it completes (all but its
// last token, which never went through the model). The least recently used blocks are evicted.
// A request's `cache_salt` seeds the chain (vLLM hashes it into the first block's keys), so prompts
// hit only blocks cached under the same salt, or under none without one.
import { hashBlock, hashString } from './hash.js';
import { Lru } from './lru.js';

export const BLOCK_SIZE = 16;

export class PrefixCache {
  private readonly blocks: Lru<number, true>;
  private readonly memo = new WeakMap<readonly number[], { salt: string | null; hashes: number[] }>();

  constructor(capacityBlocks = 65_536) {
    this.blocks = new Lru(capacityBlocks);
  }

  /** Cached tokens for this prompt; the prompt's blocks are cached from now on. */
  admit(promptIds: readonly number[], salt: string | null = null): number {
    const hashes = this.hashes(promptIds, salt);
    const usable = Math.floor((promptIds.length - 1) / BLOCK_SIZE);
    let hits = 0;
    while (hits < usable && hits < hashes.length && this.blocks.has(hashes[hits] ?? -1)) hits++;
    for (const h of hashes) this.blocks.set(h, true);
    return hits * BLOCK_SIZE;
  }

  /** Caches the blocks of prompt + answer once the answer is complete. */
  complete(promptIds: readonly number[], outputIds: readonly number[], salt: string | null = null): void {
    const promptHashes = this.hashes(promptIds, salt);
    const done = promptHashes.length * BLOCK_SIZE;
    const tail = [...promptIds.slice(done), ...outputIds.slice(0, -1)];
    let parent = promptHashes[promptHashes.length - 1] ?? seedOf(salt);
    for (let start = 0; start + BLOCK_SIZE <= tail.length; start += BLOCK_SIZE) {
      parent = hashBlock(parent, tail, start, start + BLOCK_SIZE);
      this.blocks.set(parent, true);
    }
  }

  private hashes(ids: readonly number[], salt: string | null): number[] {
    const known = this.memo.get(ids);
    if (known?.salt === salt) return known.hashes;
    const out: number[] = [];
    let parent = seedOf(salt);
    for (let start = 0; start + BLOCK_SIZE <= ids.length; start += BLOCK_SIZE) {
      parent = hashBlock(parent, ids, start, start + BLOCK_SIZE);
      out.push(parent);
    }
    this.memo.set(ids, { salt, hashes: out });
    return out;
  }
}

/** The chain's start: 0 without a salt, else a number of the salt's own (never 0). */
function seedOf(salt: string | null): number {
  return salt === null ? 0 : hashString(salt) + 1;
}
