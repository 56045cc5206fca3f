// The built-in reference upstream (sim/), run inside the gateway's process (or a node's primary) when no
// upstream is configured.
import type { GatewayConfig } from '../config/types.js';
import { DEFAULT_CONTEXT_TOKENS } from '../proxy/upstream/model-context.js';
import type { RunningSim } from '../sim/server.js';

/**
 * The built-in reference upstream, when none is configured. Imported only here, and its tokenizer (~130 MB,
 * 0.5 s) loaded with the first request that needs it, so an idle gateway does not hold it: one with a real
 * upstream never pays it.
 */
export async function startEmbeddedSim(config: GatewayConfig): Promise<RunningSim> {
  const { startSim } = await import('../sim/server.js');
  return startSim({
    warmUp: false,
    host: '127.0.0.1',
    port: 0,
    servedModel: config.model.upstream_name,
    maxModelLen: config.model.max_context_tokens ?? DEFAULT_CONTEXT_TOKENS,
    ttftMs: config.sim.ttft_ms,
    prefillUsPerToken: config.sim.prefill_us_per_token ?? 0,
    itlMs: config.sim.itl_ms,
    outputTokens: config.sim.output_tokens,
    reasoningParser: config.sim.reasoning_parser ?? false,
    flavor: config.sim.flavor ?? 'vllm',
  });
}
