// The cacheable prefixes of a message-dialect request, in Anthropic's cache order: tools, then the
// system blocks, then the messages' content blocks. Each block closes a prefix; a block with
// `cache_control` is a breakpoint. A prefix is identified by a SHA-256 over the blocks up to and
// including it (their JSON with sorted keys and without `cache_control`, each tagged with its place:
// tool, system, or message index and role), so the same content in the same order is the same prefix
// whatever its marks and key order. For hits, the hashes of the breakpoints and of the 20 blocks
// before each are looked up, as Anthropic looks back for earlier cache entries.
import { createHash } from 'node:crypto';
import { GatewayError } from '../../proxy/errors.js';
import type { MessageParam, MessagesRequest, TextBlock, ToolParam } from '../../dialects/messages/types.js';

export type CacheTtl = '5m' | '1h';

/** The request cut just after a block: what the prefix's tokens are counted on. */
export type PrefixRequest = Pick<MessagesRequest, 'model' | 'messages' | 'tools' | 'system'>;

export interface Breakpoint {
  /** The marked block's place in cache order, from 0. */
  position: number;
  ttl: CacheTtl;
  hash: string;
  prefix: PrefixRequest;
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

interface Element {
  /** Where the block sits: `t` (tool), `s` (system), or `m<index>:<role>`. */
  place: string;
  block: Block;
  /** The block's `cache_control`, when it has one. */
  mark: unknown;
  /** The request's param path of the block, for errors. */
  param: string;
  cut(): PrefixRequest;
}

/** The request's prefixes, or undefined when no block carries `cache_control`; a bad mark is a 400 (as Anthropic answers). */
export function cachePrefixes(body: unknown): CachePrefixes | undefined {
  const elements = elementsOf(body as MessagesRequest);
  const marked = elements.flatMap((element, position) => (element.mark === undefined ? [] : [{ position, ttl: ttlOf(element.mark, element.param) }]));
  if (marked.length === 0) return undefined;
  if (marked.length > MAX_BREAKPOINTS) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`, 'cache_control');
  }
  const wanted = new Set<number>();
  for (const { position } of marked) for (let p = Math.max(0, position - LOOKBACK_BLOCKS); p <= position; p++) wanted.add(p);
  const last = marked[marked.length - 1]!.position;
  const hashes = new Map<number, string>();
  const running = createHash('sha256');
  for (let position = 0; position <= last; position++) {
    const element = elements[position]!;
    running.update(`${element.place}\u0000${canonicalJson(element.block, true)}\u0001`);
    if (wanted.has(position)) hashes.set(position, running.copy().digest('base64url'));
  }
  return {
    breakpoints: marked.map(({ position, ttl }) => ({ position, ttl, hash: hashes.get(position)!, prefix: elements[position]!.cut() })),
    lookups: [...hashes].sort((a, b) => a[0] - b[0]).map(([position, hash]) => ({ position, hash })),
  };
}

/** The blocks in cache order (a string system prompt or message content is one text block). */
function elementsOf(request: MessagesRequest): Element[] {
  const { model, messages } = request;
  const tools: ToolParam[] = request.tools ?? [];
  const system = typeof request.system === 'string' ? [{ type: 'text' as const, text: request.system }] : request.system;
  const elements: Element[] = [];
  const add = (place: string, block: Block, param: string, cut: () => PrefixRequest): void => {
    elements.push({ place, block, mark: block.cache_control, param, cut });
  };
  tools.forEach((tool, i) => add('t', tool as unknown as Block, `tools[${i}]`, () => ({ model, tools: tools.slice(0, i + 1), messages: [] })));
  const withTools = tools.length > 0 ? { tools } : {};
  system?.forEach((block, i) => add('s', block as unknown as Block, `system[${i}]`, () => ({ model, ...withTools, system: system.slice(0, i + 1) as TextBlock[], messages: [] })));
  const withSystem = system !== undefined ? { system: request.system } : {};
  messages.forEach((message, m) => {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    blocks.forEach((block, b) => {
      const cut = (): PrefixRequest => ({ model, ...withTools, ...withSystem, messages: [...messages.slice(0, m), { role: message.role, content: blocks.slice(0, b + 1) } as MessageParam] });
      add(`m${m}:${message.role}`, block as unknown as Block, `messages[${m}].content[${b}]`, cut);
    });
  });
  return elements;
}

/** `{type: 'ephemeral', ttl?: '5m' | '1h'}`; the TTL defaults to 5 minutes. */
function ttlOf(mark: unknown, param: string): CacheTtl {
  const where = `${param}.cache_control`;
  if (typeof mark !== 'object' || mark === null || (mark as Block).type !== 'ephemeral') {
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `Invalid value for '${where}': expected {"type": "ephemeral"} with an optional ttl.`, `${where}.type`);
  }
  const ttl = (mark as Block).ttl;
  if (ttl === undefined) return '5m';
  if (ttl === '5m' || ttl === '1h') return ttl;
  throw new GatewayError('GW_ERR_REQUEST_INVALID', `Invalid value for '${where}.ttl': must be one of "5m", "1h".`, `${where}.ttl`);
}

/** JSON with sorted keys; `cache_control` left out of the block itself (and of the blocks a tool_result holds). */
export function canonicalJson(value: unknown, isBlock = false): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, isBlock)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const record = value as Block;
  const keys = Object.keys(record).filter((key) => !(isBlock && key === 'cache_control') && record[key] !== undefined).sort();
  const inner = (key: string): boolean => isBlock && key === 'content' && record.type === 'tool_result';
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key], inner(key))}`).join(',')}}`;
}
