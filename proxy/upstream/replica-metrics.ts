// One upstream replica's series of the gateway's metrics (telemetry/metrics.ts), bound to its label
// once, when the pool is made: recording an attempt is then a few increments, with no label lookups.
import type { Counter } from 'prom-client';
import type { HistogramSeries } from '../../telemetry/bound-histogram.js';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import type { AffinityOutcome } from './replica-choice.js';

/** Why an upstream call failed, as `gateway_upstream_errors_total` counts it. */
export type UpstreamErrorKind = 'connect' | 'timeout' | 'overloaded' | 'status_5xx' | 'failed';

export class ReplicaMetrics {
  readonly #answered: Record<'2xx' | '3xx' | '4xx' | '5xx', Counter.Internal>;
  readonly #unanswered: Counter.Internal;
  readonly #errors: Record<UpstreamErrorKind, Counter.Internal>;
  readonly #retries: Counter.Internal;
  readonly #poolWaits: Counter.Internal;
  readonly #firstByte: HistogramSeries;
  readonly #affinity: Record<AffinityOutcome, Counter.Internal>;

  constructor(metrics: GatewayMetrics, replica: string) {
    const outcome = (name: string): Counter.Internal => metrics.upstreamRequests.labels({ replica, outcome: name });
    const kind = (name: UpstreamErrorKind): Counter.Internal => metrics.upstreamErrors.labels({ replica, kind: name });
    this.#answered = { '2xx': outcome('2xx'), '3xx': outcome('3xx'), '4xx': outcome('4xx'), '5xx': outcome('5xx') };
    this.#unanswered = outcome('error');
    this.#errors = {
      connect: kind('connect'),
      timeout: kind('timeout'),
      overloaded: kind('overloaded'),
      status_5xx: kind('status_5xx'),
      failed: kind('failed'),
    };
    this.#retries = metrics.upstreamRetries.labels({ replica });
    this.#poolWaits = metrics.upstreamPoolWaits.labels({ replica });
    this.#firstByte = metrics.upstreamFirstByte.series({ replica });
    this.#affinity = {
      hit: metrics.upstreamAffinity.labels({ replica, outcome: 'hit' }),
      spilled: metrics.upstreamAffinity.labels({ replica, outcome: 'spilled' }),
    };
    // Shown from the start at 0, so a dashboard's rate has a series before the first conversation comes.
    this.#affinity.hit.inc(0);
    this.#affinity.spilled.inc(0);
  }

  /** A request of a conversation came to this replica by affinity. */
  routed(outcome: AffinityOutcome): void {
    this.#affinity[outcome].inc();
  }

  /** The response head arrived `seconds` after the request was dispatched. */
  answered(status: number, seconds: number): void {
    this.#firstByte.observe(seconds);
    if (status >= 500) {
      this.#answered['5xx'].inc();
      this.#errors.status_5xx.inc();
    } else if (status >= 400) this.#answered['4xx'].inc();
    else if (status >= 300) this.#answered['3xx'].inc();
    else this.#answered['2xx'].inc();
  }

  /** No response came: `kind` when the upstream side is to blame, undefined when the gateway let go (the client left, a shutdown). */
  unanswered(kind: UpstreamErrorKind | undefined): void {
    this.#unanswered.inc();
    if (kind !== undefined) this.#errors[kind].inc();
  }

  /** A response that had started broke off (a stream cut, an idle timeout). */
  broke(kind: UpstreamErrorKind): void {
    this.#errors[kind].inc();
  }

  retried(): void {
    this.#retries.inc();
  }

  queued(): void {
    this.#poolWaits.inc();
  }
}
