// One fuzzed request: built as a draft by the mutations, then frozen into the exact bytes and headers sent.
import type { JsonNode } from './json-tree.js';
import type { Prng } from './prng.js';
import type { RouteName } from './routes.js';

/** The API keys the fuzzer holds, one per organization it set up (fuzz/fuzz-orgs.ts). */
export interface Credentials {
  /** Plenty of credits. */
  rich: string;
  /** A few credits: some holds fit, some get 402. */
  poor: string;
  /** No credits: 402. */
  broke: string;
  /** Revoked: 401. */
  revoked: string;
}

export interface FuzzCase {
  /** The case's number in its run: with the seed, all it takes to build it again. */
  index: number;
  route: RouteName;
  /** The corpus seed it started from. */
  seed: string;
  /** What was done to it, in order (for the report); the key it carries first. */
  mutations: string[];
  /** Changed from its seed in any way, the key included (not a rich key as the seed has it). */
  mutated: boolean;
  headers: Record<string, string>;
  body: Buffer;
  /** Sent with transfer-encoding chunked instead of content-length. */
  chunked: boolean;
}

/** The request while mutations work on it: a tree until a byte mutation turns it into bytes. */
export interface Draft {
  route: RouteName;
  tree: JsonNode;
  /** Once set, the body is these bytes and tree mutations no longer apply. */
  bytes: Buffer | undefined;
  headers: Record<string, string>;
  chunked: boolean;
}

export interface MutationContext {
  credentials: Credentials;
  bodyLimitBytes: number;
}

/**
 * Stages run in this order whatever order the mutations were drawn in: the tree, then its bytes, then the
 * headers, then the content encoding (which compresses the final bytes).
 */
export const STAGES = ['tree', 'bytes', 'headers', 'encoding'] as const;
export type Stage = (typeof STAGES)[number];

export interface Mutation {
  name: string;
  stage: Stage;
  /** How often it is drawn, relative to the others. */
  weight: number;
  /** Changes the draft; returns a short note of what it did (shown in reports), or undefined if it did nothing. */
  apply(draft: Draft, rng: Prng, context: MutationContext): string | undefined;
}
