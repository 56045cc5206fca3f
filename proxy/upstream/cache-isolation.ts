// Keeping the upstream's prompt cache apart between organizations. An inference server reuses the KV
// cache of any earlier prompt with the same prefix, whoever sent it: one organization's request then
// runs faster on another's prefix (a timing side channel) and comes back with `cached_tokens` that the
// gateway would bill as a cache read of the wrong organization. `upstream.cache_isolation`:
// - `per_org`: vLLM and SGLang take a per-request `cache_salt` that partitions their prefix cache (vLLM
//   hashes it into the first block, SGLang into the radix key). Each organization gets its own salt, an
//   HMAC of its id under a key derived from the server secret, so the upstream never learns org ids
//   and every node of a deployment sends the same salt for the same organization.
// - `no_reuse`: llama-server's per-request `cache_prompt: false`: no prefix of any earlier request is
//   reused, this organization's own included (every prompt is computed whole).
// - `off`: nothing is sent; the server's cache is shared.
// Where the cache is isolated, the upstream's cached tokens are the caller's own and stay reads; where it
// is not (`off`, or a server that has no such field), they are plain input: only the gateway's own
// registry (plugins/promptcache) can then say that this organization wrote a prefix.
import { createHmac, hkdfSync } from 'node:crypto';
import type { UpstreamFlavor } from './request-fields.js';

export const CACHE_ISOLATIONS = ['per_org', 'no_reuse', 'off'] as const;

export type CacheIsolation = (typeof CACHE_ISOLATIONS)[number];

/** The flavors that honour each way (`off` needs nothing). */
const HONOURED_BY: Readonly<Record<Exclude<CacheIsolation, 'off'>, ReadonlySet<UpstreamFlavor>>> = {
  per_org: new Set(['vllm', 'sglang']),
  no_reuse: new Set(['llama-server']),
};

/** `per_org` where the flavor has a salt, else `off`: `no_reuse` costs every prompt its reuse, so the operator chooses it. */
export function defaultCacheIsolation(flavor: UpstreamFlavor): CacheIsolation {
  return HONOURED_BY.per_org.has(flavor) ? 'per_org' : 'off';
}

export function honours(flavor: UpstreamFlavor, isolation: CacheIsolation): boolean {
  return isolation === 'off' || HONOURED_BY[isolation].has(flavor);
}

/** Base64url characters of a salt: 192 bits, short enough for every server's limit. */
const SALT_LENGTH = 32;
const NO_REUSE = Object.freeze({ cache_prompt: false });
/** The organizations whose salted fields are kept made (an HMAC a request was about 1% of a request's CPU); the oldest goes first. */
const REMEMBERED_ORGS = 10_000;

export class CacheIsolator {
  readonly isolation: CacheIsolation;
  readonly #key: Buffer;
  readonly #salted = new Map<string, Readonly<Record<string, unknown>>>();

  constructor(isolation: CacheIsolation, secret: Buffer) {
    this.isolation = isolation;
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'open-model-gateway', 'prompt-cache-salt-v1', 32));
  }

  /** Whether the upstream's `cached_tokens` can only be the caller's own prefixes. */
  get trustsCachedTokens(): boolean {
    return this.isolation !== 'off';
  }

  /**
   * The fields that keep this request's cache apart, added to the upstream body over whatever the
   * client sent; none without a caller (no auth plugin: the requests are one tenant's, unsalted).
   */
  fieldsFor(orgId: string | undefined): Readonly<Record<string, unknown>> | undefined {
    switch (this.isolation) {
      case 'per_org':
        return orgId === undefined ? undefined : this.#saltedFields(orgId);
      case 'no_reuse':
        return NO_REUSE;
      case 'off':
        return undefined;
    }
  }

  #saltedFields(orgId: string): Readonly<Record<string, unknown>> {
    let fields = this.#salted.get(orgId);
    if (fields === undefined) {
      if (this.#salted.size >= REMEMBERED_ORGS) this.#salted.delete(this.#salted.keys().next().value as string);
      fields = Object.freeze({ cache_salt: this.saltOf(orgId) });
      this.#salted.set(orgId, fields);
    }
    return fields;
  }

  saltOf(orgId: string): string {
    return createHmac('sha256', this.#key).update(orgId, 'utf8').digest('base64url').slice(0, SALT_LENGTH);
  }
}
