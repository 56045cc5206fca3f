// The one token-counting function of a node, that count_tokens and the plugins (the prompt cache) both
// call: the counter's count, counted in `gateway_count_tokens_total` when the metrics are on.
import type { ChatRequest } from '../core/canonical.js';
import type { GatewayMetrics } from '../telemetry/metrics.js';
import type { TokenCounter } from './counter.js';

export type CountTokens = (request: ChatRequest, signal?: AbortSignal) => Promise<number>;

export function countedTokens(counter: TokenCounter, metrics: GatewayMetrics | undefined): CountTokens {
  if (metrics === undefined) return (request, signal) => counter.count(request, signal);
  const ok = metrics.tokenCounts.labels({ outcome: 'ok' });
  const failed = metrics.tokenCounts.labels({ outcome: 'failed' });
  return (request, signal) =>
    counter.count(request, signal).then(
      (tokens) => {
        ok.inc();
        return tokens;
      },
      (error: unknown) => {
        failed.inc();
        throw error;
      },
    );
}
