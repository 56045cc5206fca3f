// One request's prompt-cache accounting: which of its prefixes the organization has cached (the
// longest alive one is the hit), how many tokens each marked prefix holds (from the registry when
// known, else counted with the gateway's token counter on the request cut after the marked block,
// exactly as count_tokens counts it), how the upstream's prompt tokens split, and what to write back.
import type { ChatRequest } from '../../core/canonical.js';
import { splitPrompt, type CacheSplit, type MarkedPrefix } from './accounting.js';
import type { CachePrefixes, CacheTtl } from './prefixes.js';
import type { PrefixEntry, PrefixRegistry } from './registry.js';

export interface PromptCacheOptions {
  registry: PrefixRegistry;
  /** How long a written prefix lives, per TTL mark. */
  ttlMs: Readonly<Record<CacheTtl, number>>;
  countTokens(request: ChatRequest, signal?: AbortSignal): Promise<number>;
}

type Entry = PrefixEntry & { hash: string };

export class PromptCache {
  readonly #options: PromptCacheOptions;

  constructor(options: PromptCacheOptions) {
    this.#options = options;
  }

  get registry(): PrefixRegistry {
    return this.#options.registry;
  }

  async plan(orgId: string, prefixes: CachePrefixes, signal?: AbortSignal): Promise<CachePlan> {
    const found = await this.#options.registry.lookup(
      orgId,
      prefixes.lookups.map((lookup) => lookup.hash),
    );
    let hit: Entry | undefined;
    for (const [hash, entry] of found) if (hit === undefined || entry.tokens > hit.tokens) hit = { hash, ...entry };
    const counted = await Promise.all(
      prefixes.breakpoints.map(
        (breakpoint) => found.get(breakpoint.hash)?.tokens ?? this.#options.countTokens(breakpoint.prefix(), signal),
      ),
    );
    // A longer prefix never holds fewer tokens (a chat template may render a cut a token differently).
    let floor = 0;
    const marks = prefixes.breakpoints.map((breakpoint, i) => {
      floor = Math.max(floor, counted[i]!);
      return { hash: breakpoint.hash, ttl: breakpoint.ttl, tokens: floor, known: found.get(breakpoint.hash) };
    });
    return new CachePlan(orgId, hit, marks, this.#options.ttlMs);
  }
}

export class CachePlan {
  readonly orgId: string;
  readonly #hit: Entry | undefined;
  readonly #marks: ReadonlyArray<MarkedPrefix & { hash: string; known: PrefixEntry | undefined }>;
  readonly #ttlMs: Readonly<Record<CacheTtl, number>>;

  constructor(
    orgId: string,
    hit: Entry | undefined,
    marks: CachePlan['marks'],
    ttlMs: Readonly<Record<CacheTtl, number>>,
  ) {
    this.orgId = orgId;
    this.#hit = hit;
    this.#marks = marks;
    this.#ttlMs = ttlMs;
  }

  /** The marked prefixes, in cache order, with their tokens (for tests and logs). */
  get marks(): ReadonlyArray<MarkedPrefix & { hash: string; known: PrefixEntry | undefined }> {
    return this.#marks;
  }

  /** The registry's hit: the longest cached prefix still alive, if any. */
  get hitTokens(): number {
    return this.#hit?.tokens ?? 0;
  }

  split(promptTokens: number, upstreamCached: number): CacheSplit {
    return splitPrompt(promptTokens, this.hitTokens, upstreamCached, this.#marks);
  }

  /**
   * What to write back: every marked prefix (new ones written, cached ones refreshed) and the hit
   * (a read refreshes its TTL, as Anthropic's does). An entry never expires sooner than it would have.
   */
  entries(now: number): Entry[] {
    const entries = this.#marks.map(({ hash, tokens, ttl, known }): Entry => {
      const longest = known?.ttl === '1h' ? '1h' : ttl;
      return { hash, tokens, ttl: longest, expiresAt: Math.max(known?.expiresAt ?? 0, now + this.#ttlMs[ttl]) };
    });
    const hit = this.#hit;
    if (hit !== undefined && !entries.some((entry) => entry.hash === hit.hash))
      entries.push({ ...hit, expiresAt: Math.max(hit.expiresAt, now + this.#ttlMs[hit.ttl]) });
    return entries;
  }
}
