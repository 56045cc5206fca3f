// The prompt-cache registry of a node of several workers without Redis: one MemoryRegistry in the primary
// process (core/shared-objects.ts), so a prefix one worker cached is a cache read on every worker.
import type { SharedObjects } from '../../core/shared-objects.js';
import type { PrefixEntry, PrefixRegistry } from './registry.js';

export const SHARED_REGISTRY_KIND = 'prompt-prefixes';

/** The primary's object: its kind and its entry bound (`prompt-prefixes:100000`, or none for the default). */
export function sharedRegistryName(maxEntries: number | undefined): string {
  return maxEntries === undefined ? SHARED_REGISTRY_KIND : `${SHARED_REGISTRY_KIND}:${maxEntries}`;
}

export class SharedRegistry implements PrefixRegistry {
  readonly #shared: SharedObjects;
  readonly #name: string;

  constructor(shared: SharedObjects, maxEntries: number | undefined) {
    this.#shared = shared;
    this.#name = sharedRegistryName(maxEntries);
  }

  lookup(orgId: string, hashes: readonly string[]): Promise<Map<string, PrefixEntry>> {
    return this.#shared.call(this.#name, 'lookup', [orgId, hashes]);
  }

  register(orgId: string, entries: ReadonlyArray<PrefixEntry & { hash: string }>): Promise<void> {
    return this.#shared.call(this.#name, 'register', [orgId, entries]);
  }
}
