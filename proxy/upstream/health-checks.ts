// Active health checks (docs/upstreams.md, "Health"): every `upstream.health_check_interval_ms`, a GET of each
// replica's health endpoint (its flavor's, upstream-health.ts) on a connection of its own, never one of the
// pool's, so a probe does not wait behind streams. A replica that does not answer 200 is out of the routing
// until a probe finds it up again; one found up after being down is back at once (replica.ts). Passive
// ejection goes on beside it: a request that fails takes its replica out for a cool-down between probes. With
// `upstream.load_from_metrics`, a replica found up also has its server's own metrics read (server-load.ts): one
// with requests waiting in its scheduler, or its KV cache nearly full, is passed by while another has room.
import type { UpstreamFlavor } from './request-fields.js';
import type { Replica } from './replica.js';
import { healthProblem, healthUrl } from './upstream-health.js';
import { getText, type ProbeTarget } from './upstream-get.js';
import { isFull, serverLoad } from './server-load.js';

export interface HealthCheckOptions {
  flavor: UpstreamFlavor;
  intervalMs: number;
  /** The upstream's key and the longest a probe may take. */
  target: ProbeTarget;
  log: TransitionLog;
  /** Read each replica's own metrics after its probe (`upstream.load_from_metrics`): full at this KV cache use. */
  load?: { kvCacheFull: number };
}

/** Where a replica's going down and coming back are told (the node's logger). */
export interface TransitionLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export class HealthChecks {
  readonly #replicas: readonly Replica[];
  readonly #options: HealthCheckOptions;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;

  constructor(replicas: readonly Replica[], options: HealthCheckOptions) {
    this.#replicas = replicas;
    this.#options = options;
  }

  /** Probes every replica now, then every interval; resolves when the first round is in. */
  async start(): Promise<void> {
    await this.probeAll();
    this.#timer = setInterval(() => void this.probeAll(), this.#options.intervalMs);
  }

  /** One round: every replica probed at once; a round still under way is the one returned. */
  probeAll(): Promise<void> {
    this.#round ??= Promise.all(this.#replicas.map((replica) => this.#probe(replica))).then(() => {
      this.#round = undefined;
    });
    return this.#round;
  }

  /** Whether the last round found some replica up: /ready's upstream check when the checks run. */
  anyUp(): boolean {
    return this.#replicas.some((replica) => replica.probe === 'up');
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#round;
  }

  async #probe(replica: Replica): Promise<void> {
    const url = healthUrl(replica.origin + replica.basePath, this.#options.flavor);
    const why = await healthProblem(url, this.#options.target);
    const before = replica.probe;
    replica.probed(why === undefined);
    const load = this.#options.load;
    if (load !== undefined && why === undefined) {
      const metrics = await getText(metricsUrl(replica), this.#options.target);
      replica.full = isFull(metrics === undefined ? undefined : serverLoad(metrics), load.kvCacheFull);
    }
    if (why !== undefined && before !== 'down')
      this.#options.log.warn(
        { replica: replica.label, url, why },
        'upstream replica failed its health check: out of the routing',
      );
    else if (why === undefined && before === 'down')
      this.#options.log.info(
        { replica: replica.label, url },
        'upstream replica passed its health check: back in the routing',
      );
  }
}

/** Where a server publishes its Prometheus metrics: `/metrics` at its origin (vLLM, llama-server, SGLang, TGI). */
function metricsUrl(replica: Replica): string {
  return `${replica.origin}/metrics`;
}
