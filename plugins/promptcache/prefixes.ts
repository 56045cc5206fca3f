// The cacheable prefixes of a request, from its blocks in cache order (CacheBlock: the message
// dialect's tools, then system blocks, then the messages' content blocks). Each block closes a
// prefix; a block with `cache_control` is a breakpoint. A prefix is identified by a SHA-256 over the
// blocks up to and including it (their JSON with sorted keys and without `cache_control`, each tagged
// with its place: tool, system, or message index and role), so the same content in the same order is
// the same prefix whatever its marks and key order. For hits, the hashes of the breakpoints and of the
// 20 blocks before each are looked up, as Anthropic looks back for earlier cache entries.
import { createHash } from 'node:crypto';
import type { CacheBlock, ChatRequest } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';

export type CacheTtl = '5m' | '1h';

export interface Breakpoint {
  /** The marked block's place in cache order, from 0. */
  position: number;
  ttl: CacheTtl;
  hash: string;
  /** The canonical request cut just after the block: what the prefix's tokens are counted on. */
  prefix: () => ChatRequest;
}

export interface CachePrefixes {
  /** In cache order. */
  breakpoints: Breakpoint[];
  /** The prefixes to look up for a hit (breakpoints and the blocks before them), in cache order. */
  lookups: Array<{ position: number; hash: string }>;
}

/** Anthropic's limit on cache_control blocks per request. */
export const MAX_BREAKPOINTS = 4;
/** How many blocks before a breakpoint are also looked up. */
export const LOOKBACK_BLOCKS = 20;

type Block = Record<string, unknown>;

/** The request's prefixes, or undefined when no block carries `cache_control`; a bad mark is a 400 (as Anthropic answers). */
export function cachePrefixes(blocks: readonly CacheBlock[]): CachePrefixes | undefined {
  const marked = blocks.flatMap((block, position) =>
    block.mark === undefined ? [] : [{ position, ttl: ttlOf(block.mark, block.param) }],
  );
  if (marked.length === 0) return undefined;
  if (marked.length > MAX_BREAKPOINTS) {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`,
      'cache_control',
    );
  }
  const wanted = new Set<number>();
  for (const { position } of marked)
    for (let p = Math.max(0, position - LOOKBACK_BLOCKS); p <= position; p++) wanted.add(p);
  const last = marked[marked.length - 1]!.position;
  const hashes = new Map<number, string>();
  const running = createHash('sha256');
  for (let position = 0; position <= last; position++) {
    const block = blocks[position]!;
    running.update(`${block.place}\u0000${canonicalJson(block.block, true)}\u0001`);
    if (wanted.has(position)) hashes.set(position, running.copy().digest('base64url'));
  }
  return {
    breakpoints: marked.map(({ position, ttl }) => ({
      position,
      ttl,
      hash: hashes.get(position)!,
      prefix: blocks[position]!.prefix,
    })),
    lookups: [...hashes].sort((a, b) => a[0] - b[0]).map(([position, hash]) => ({ position, hash })),
  };
}

/** `{type: 'ephemeral', ttl?: '5m' | '1h'}`; the TTL defaults to 5 minutes. */
function ttlOf(mark: unknown, param: string): CacheTtl {
  const where = `${param}.cache_control`;
  if (typeof mark !== 'object' || mark === null || (mark as Block).type !== 'ephemeral') {
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `Invalid value for '${where}': expected {"type": "ephemeral"} with an optional ttl.`,
      `${where}.type`,
    );
  }
  const ttl = (mark as Block).ttl;
  if (ttl === undefined) return '5m';
  if (ttl === '5m' || ttl === '1h') return ttl;
  throw new GatewayError(
    'GW_ERR_REQUEST_INVALID',
    `Invalid value for '${where}.ttl': must be one of "5m", "1h".`,
    `${where}.ttl`,
  );
}

/** JSON with sorted keys; `cache_control` left out of the block itself (and of the blocks a tool_result holds). */
export function canonicalJson(value: unknown, isBlock = false): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, isBlock)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const record = value as Block;
  const keys = Object.keys(record)
    .filter((key) => !(isBlock && key === 'cache_control') && record[key] !== undefined)
    .sort();
  const inner = (key: string): boolean => isBlock && key === 'content' && record.type === 'tool_result';
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key], inner(key))}`).join(',')}}`;
}
