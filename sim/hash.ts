// Small non-cryptographic hashes: a 32-bit one for strings (PRNG seeds) and a 53-bit chained one
// for token blocks (prefix cache keys; 53 bits keep collisions out of reach at any cache size).

export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Hash of ids[start, end) chained to the hash of the block before it (cyrb53's mixing). */
export function hashBlock(parent: number, ids: ArrayLike<number>, start: number, end: number): number {
  let h1 = 0xdeadbeef ^ (parent >>> 0);
  let h2 = 0x41c6ce57 ^ Math.floor(parent / 0x100000000);
  for (let i = start; i < end; i++) {
    const id = ids[i] ?? 0;
    h1 = Math.imul(h1 ^ id, 2654435761);
    h2 = Math.imul(h2 ^ id, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
