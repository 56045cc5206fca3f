// The search provider's series of the gateway's metrics, bound to its name once, when the plugin is made.
import type { Counter } from 'prom-client';
import type { HistogramSeries } from '../../telemetry/bound-histogram.js';
import type { GatewayMetrics } from '../../telemetry/metrics.js';

export class SearchMetrics {
  readonly #ok: Counter.Internal;
  readonly #failed: Counter.Internal;
  readonly #duration: HistogramSeries;

  constructor(metrics: GatewayMetrics, provider: string) {
    this.#ok = metrics.searches.labels({ provider, outcome: 'ok' });
    this.#failed = metrics.searches.labels({ provider, outcome: 'failed' });
    this.#duration = metrics.searchDuration.series({ provider });
  }

  /** One call of the provider, over after `seconds`: it gave results (ok), or failed or timed out. */
  called(ok: boolean, seconds: number): void {
    (ok ? this.#ok : this.#failed).inc();
    this.#duration.observe(seconds);
  }
}
