import { Pool } from 'undici';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import { replicaLabel } from '../../telemetry/replica-label.js';
import { ReplicaMetrics } from './replica-metrics.js';

export interface ReplicaOptions {
  connections: number;
  connectTimeoutMs: number;
  /** How long a failing replica stays out before it is tried again; doubles per consecutive failure. */
  unhealthyMs: number;
  /** The node's metrics, when they are on. */
  metrics?: GatewayMetrics | undefined;
}

/** One upstream server: a keep-alive connection pool plus what passive health checking knows of it. */
export class Replica {
  /** Its base URL without credentials or query: its `replica` label in the metrics. */
  readonly label: string;
  readonly origin: string;
  /** The OpenAI base path, e.g. `/v1`; chat completions live at `${basePath}/chat/completions`. */
  readonly basePath: string;
  /** Its host and port (a trace's `server.address` and `server.port`). */
  readonly host: string;
  readonly port: number;
  readonly pool: Pool;
  /** Its series, when the metrics are on. */
  readonly metrics: ReplicaMetrics | undefined;
  inFlight = 0;
  #failures = 0;
  #downUntil = 0;
  readonly #unhealthyMs: number;

  constructor(baseUrl: string, options: ReplicaOptions) {
    const url = new URL(baseUrl);
    this.origin = url.origin;
    this.host = url.hostname;
    this.port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const path = url.pathname.replace(/\/+$/, '');
    this.basePath = path === '' ? '/v1' : path;
    this.label = replicaLabel(this.origin + this.basePath);
    this.metrics = options.metrics === undefined ? undefined : new ReplicaMetrics(options.metrics, this.label);
    this.#unhealthyMs = options.unhealthyMs;
    this.pool = new Pool(this.origin, {
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.connectTimeoutMs },
    });
  }

  healthyAt(now: number): boolean {
    return now >= this.#downUntil;
  }

  get downUntil(): number {
    return this.#downUntil;
  }

  markFailure(now: number): void {
    this.#failures += 1;
    const cooldown = Math.min(this.#unhealthyMs * 2 ** (this.#failures - 1), this.#unhealthyMs * 32);
    this.#downUntil = now + cooldown;
  }

  markSuccess(): void {
    this.#failures = 0;
    this.#downUntil = 0;
  }
}
