// What the gateway learns about its upstream at start, from what the first upstream URL says about
// itself (proxy/upstream/upstream-report.ts), and what it decides from it, each decision logged once:
// the server's kind (`upstream.flavor`, or the detected one), the context one request may use (the
// model's, bounded by llama-server's slots where they share their KV cache), the connections per
// replica, and how the server's prompt cache is kept apart between organizations.
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/types.js';
import { defaultCacheIsolation, honours, type CacheIsolation } from '../proxy/upstream/cache-isolation.js';
import { detectedFlavor, type DetectedFlavor } from '../proxy/upstream/flavor-detect.js';
import { DEFAULT_CONTEXT_TOKENS, reportedContext } from '../proxy/upstream/model-context.js';
import { defaultThinkingField, type UpstreamFlavor } from '../proxy/upstream/request-fields.js';
import { sharedContext, slotCount } from '../proxy/upstream/slot-context.js';
import { readUpstreamReport, type UpstreamReport } from '../proxy/upstream/upstream-report.js';
import { tokenizeFlavorOf } from '../tokenizer/upstream-counter.js';

/** The flavor when neither the config nor the upstream says: vLLM's fields, the embedded sim's kind. */
const FALLBACK_FLAVOR: UpstreamFlavor = 'vllm';
/** Connections per replica when the config leaves them unset and the server has no slots to count. */
const DEFAULT_CONNECTIONS = 1024;
/** Per llama-server slot: one answer running, three waiting in the server's own queue, the rest here. */
const CONNECTIONS_PER_SLOT = 4;

export interface UpstreamFacts {
  flavor: UpstreamFlavor;
  /** The context one request may use: max_tokens and the model list's limits. */
  contextTokens: number;
  /** The most tokens one request can reach on the server: the ceiling of the usage it may report. */
  usageCeiling: number;
  connections: number;
  cacheIsolation: CacheIsolation;
}

export async function discoverUpstream(
  config: GatewayConfig,
  baseUrl: string,
  apiKey: string | undefined,
  log: Logger,
): Promise<UpstreamFacts> {
  const report = await readUpstreamReport({ baseUrl, apiKey, timeoutMs: config.upstream.connect_timeout_ms });
  const detected = detectedFlavor(report, config.model.upstream_name);
  const flavor = flavorOf(config, detected, report, log);
  return {
    flavor,
    ...contextOf(config, report, flavor, log),
    connections: connectionsOf(config, report, log),
    cacheIsolation: cacheIsolationOf(config, flavor, detected, log),
  };
}

function flavorOf(
  config: GatewayConfig,
  detected: DetectedFlavor | undefined,
  report: UpstreamReport,
  log: Logger,
): UpstreamFlavor {
  const configured = config.upstream.flavor;
  if (configured === undefined) {
    if (detected !== undefined) {
      log.info({ flavor: detected.flavor, evidence: detected.evidence }, 'upstream flavor as the upstream shows it');
      return detected.flavor;
    }
    log.warn(
      { flavor: FALLBACK_FLAVOR },
      `the upstream did not show its kind (down at start, or none the gateway knows): flavor ${FALLBACK_FLAVOR}; set upstream.flavor`,
    );
    return FALLBACK_FLAVOR;
  }
  if (detected !== undefined && detected.flavor !== configured) {
    log.warn(
      { flavor: configured, detected: detected.flavor, evidence: detected.evidence },
      `upstream.flavor is ${configured} but the upstream is ${detected.flavor} (${detected.evidence}); the gateway goes by ` +
        `${configured}: ${mismatchEffects(config, configured, detected.flavor, report).join('; ')}. ` +
        `Set upstream.flavor: ${detected.flavor}, or leave it unset`,
    );
  }
  return configured;
}

/** What goes wrong when the configured flavor is not the server's, for the warning. */
function mismatchEffects(
  config: GatewayConfig,
  configured: UpstreamFlavor,
  actual: UpstreamFlavor,
  report: UpstreamReport,
): string[] {
  const effects = [`the request fields are ${configured}'s`];
  if (config.upstream.thinking_field === undefined) {
    const sent = defaultThinkingField(configured);
    const read = defaultThinkingField(actual);
    if (sent === undefined && read !== undefined)
      effects.push(`the thinking switch is never sent (${actual} reads ${read}), so clients cannot turn thinking off`);
    else if (sent !== undefined && read === undefined)
      effects.push(`the thinking switch goes to ${sent}, which ${actual} ignores`);
    else if (sent !== read) effects.push(`the thinking switch goes to ${sent}, ${actual} reads ${read}`);
  }
  if (config.model.max_context_tokens === undefined) {
    const found = reportedContext(report, configured, config.model.upstream_name);
    effects.push(
      found === undefined
        ? `the model context is not found (the default ${DEFAULT_CONTEXT_TOKENS} is used)`
        : `the model context is read from ${found.source}`,
    );
  }
  if (config.tokenizer.source === 'upstream' && config.tokenizer.upstream.flavor === undefined) {
    const counted = tokenizeFlavorOf(configured);
    if (counted !== tokenizeFlavorOf(actual)) effects.push(`count_tokens asks ${counted}'s tokenize endpoints`);
  }
  const isolation = config.upstream.cache_isolation ?? defaultCacheIsolation(configured);
  if (!honours(actual, isolation))
    effects.push(`${actual} ignores cache isolation ${isolation}: its cached tokens are billed as plain input`);
  return effects;
}

function contextOf(
  config: GatewayConfig,
  report: UpstreamReport,
  flavor: UpstreamFlavor,
  log: Logger,
): Pick<UpstreamFacts, 'contextTokens' | 'usageCeiling'> {
  const configured = config.model.max_context_tokens;
  if (configured !== undefined) return { contextTokens: configured, usageCeiling: configured };
  const reported = reportedContext(report, flavor, config.model.upstream_name);
  if (reported === undefined) {
    log.warn(
      { max_context_tokens: DEFAULT_CONTEXT_TOKENS },
      `the upstream does not report the model's context: using the default; set model.max_context_tokens`,
    );
    return { contextTokens: DEFAULT_CONTEXT_TOKENS, usageCeiling: DEFAULT_CONTEXT_TOKENS };
  }
  // Only llama-server's n_ctx is a pool its slots share; vLLM's max_model_len is each request's.
  const shared = reported.source === 'GET /props (n_ctx)' ? sharedContext(report, reported.tokens) : undefined;
  if (shared === undefined) {
    log.info(
      { max_context_tokens: reported.tokens, source: reported.source },
      'model context as the upstream reports it',
    );
    return { contextTokens: reported.tokens, usageCeiling: reported.tokens };
  }
  const { slots, poolTokens, perRequest } = shared;
  log.warn(
    { max_context_tokens: perRequest, n_ctx: poolTokens, total_slots: slots },
    `llama-server's KV cache of ${poolTokens} tokens is shared by its ${slots} slots (unified, its default with -np auto), ` +
      `so the gateway accepts at most ${perRequest} tokens of context per request (prompt + max_tokens) and ${slots} answers ` +
      `at once fit. For more per request: start llama-server with -c ${poolTokens * slots} (the context you want × ${slots}); ` +
      `or with --no-kv-unified (each slot n_ctx / ${slots}) and set model.max_context_tokens to a slot's context; ` +
      `or set model.max_context_tokens higher, and answers that run together may end with "Context size has been exceeded"`,
  );
  return { contextTokens: perRequest, usageCeiling: poolTokens };
}

function connectionsOf(config: GatewayConfig, report: UpstreamReport, log: Logger): number {
  if (config.upstream.connections !== undefined) return config.upstream.connections;
  const slots = slotCount(report);
  if (slots === undefined) return DEFAULT_CONNECTIONS;
  const connections = slots * CONNECTIONS_PER_SLOT;
  log.info(
    { connections, total_slots: slots },
    `upstream.connections unset: ${CONNECTIONS_PER_SLOT} per llama-server slot (one answer running, the others queued in ` +
      `the server; more wait here up to upstream.queue_timeout_ms, then 503)`,
  );
  return connections;
}

function cacheIsolationOf(
  config: GatewayConfig,
  flavor: UpstreamFlavor,
  detected: DetectedFlavor | undefined,
  log: Logger,
): CacheIsolation {
  const wanted = config.upstream.cache_isolation ?? defaultCacheIsolation(flavor);
  // A salt only isolates on a server that reads it: the configured flavor's and, when it shows another, the real one's.
  const server = detected?.flavor ?? flavor;
  if (!honours(flavor, wanted) || !honours(server, wanted)) {
    log.warn(
      { cache_isolation: 'off', wanted, flavor: server },
      `upstream.cache_isolation ${wanted} does not work on ${server}: the prompt cache is shared between organizations, ` +
        `and the upstream's cached tokens are billed as plain input`,
    );
    return 'off';
  }
  if (wanted === 'off')
    log.info(
      { cache_isolation: 'off', flavor: server },
      `the upstream's prompt cache is shared between organizations: its cached tokens are billed as plain input` +
        (server === 'llama-server'
          ? ' (upstream.cache_isolation: no_reuse isolates it, at the price of all prompt reuse)'
          : ''),
    );
  return wanted;
}
