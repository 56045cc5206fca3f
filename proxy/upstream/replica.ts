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

/** What the active health check last found of a replica (health-checks.ts); unknown until its first probe. */
export type ProbeState = 'unknown' | 'up' | 'down';

/**
 * One upstream server: a keep-alive connection pool plus what health checking knows of it: passively, a failed
 * request takes it out for a cool-down; actively, a failed probe takes it out until a probe succeeds.
 */
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
  /** Its capacity relative to the other replicas' (`upstream.weights`). */
  readonly weight: number;
  /** Its series, when the metrics are on. */
  readonly metrics: ReplicaMetrics | undefined;
  inFlight = 0;
  /** Its server's own metrics say it has no room now (server-load.ts); false when they are not read. */
  full = false;
  #probe: ProbeState = 'unknown';
  #failures = 0;
  #downUntil = 0;
  readonly #unhealthyMs: number;

  constructor(baseUrl: string, options: ReplicaOptions, weight = 1) {
    const url = new URL(baseUrl);
    this.weight = weight;
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
    return this.#probe !== 'down' && now >= this.#downUntil;
  }

  get probe(): ProbeState {
    return this.#probe;
  }

  /**
   * An active probe's finding: down keeps it out until a probe finds it up. A replica found up after being down
   * is back at once, its cool-down ended; one that stays up keeps any cool-down its failed requests earned.
   */
  probed(up: boolean): void {
    if (up && this.#probe === 'down') this.markSuccess();
    this.#probe = up ? 'up' : 'down';
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
