// The gateway.yaml sections tests run under, by name: the plugin chains, the tier tables and the upstream headers a
// test forwards to the sim. A test joins the sections it needs (`[forwardHeaders('x-sim-fault'), CHAINS.authMeter]`),
// so a chain or a tier row is written once here instead of copied into each file.

/** One link of a chain: a built-in plugin's name, or a name with its options as inline YAML. */
export type ChainLink = string | { name: string; options: string };

/** The `plugins:` section for these links, in order. */
export function chainOf(...links: ChainLink[]): string {
  const entries = links.map((link) =>
    typeof link === 'string' ? `  - name: ${link}\n` : `  - name: ${link.name}\n    options: ${link.options}\n`,
  );
  return `plugins:\n${entries.join('')}`;
}

/** The auth plugin trusting a key lookup for 5 s: what gateways that revoke keys across nodes or consoles run. */
export const AUTH_CACHED: ChainLink = { name: 'auth', options: '{ cache_ttl_ms: 5000 }' };
/** The search plugin on its local provider (no network). */
export const SEARCH_LOCAL: ChainLink = { name: 'search', options: '{ provider: local }' };

/** The chains most tests run. */
export const CHAINS = {
  authMeter: chainOf('auth', 'meter'),
  authRatelimit: chainOf('auth', 'ratelimit'),
  authRatelimitMeter: chainOf('auth', 'ratelimit', 'meter'),
  authRatelimitMeterSearch: chainOf('auth', 'ratelimit', 'meter', SEARCH_LOCAL),
} as const;

/** The `upstream:` section that passes these request headers (the sim's x-sim-* switches) through to the sim. */
export function forwardHeaders(...headers: string[]): string {
  return `upstream:\n  forward_headers: [${headers.join(', ')}]\n`;
}

/** A row of `limits.tiers`: an organization is on it from a lifetime spend of `fromSpend` credits. */
export interface Tier {
  name: string;
  fromSpend: number;
  /** Requests a minute. */
  requests: number;
  /** Input and output tokens a minute: 1,000,000 unless given, room enough that only the requests count. */
  inputTokens?: number;
  outputTokens?: number;
}

/** The `limits:` section: a one-minute window and these tiers. */
export function tiersOf(...tiers: Tier[]): string {
  const rows = tiers.map(
    (tier) =>
      `    - { name: ${tier.name}, from_spend: ${tier.fromSpend}, requests_per_minute: ${tier.requests}, ` +
      `input_tokens_per_minute: ${tier.inputTokens ?? 1_000_000}, ` +
      `output_tokens_per_minute: ${tier.outputTokens ?? 1_000_000} }\n`,
  );
  return `limits:\n  window_ms: 60000\n  tiers:\n${rows.join('')}`;
}

/** One tier for every organization, `Start`, of `requestsPerMinute` (and room for tokens). */
export const startTier = (requestsPerMinute: number): string =>
  tiersOf({ name: 'Start', fromSpend: 0, requests: requestsPerMinute });
