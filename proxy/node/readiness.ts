// GET /ready: whether this node can serve (what a load balancer asks before it sends a request here).
import type { JsonObject } from '../../core/canonical.js';

/** One thing the node needs to serve (the store, Redis), checked by a probe that rejects (or throws) when it is not there. */
export interface ReadinessCheck {
  readonly name: string;
  probe(): unknown;
}

/** What a check found: reachable, failed, or no answer within the timeout. */
export type CheckState = 'ok' | 'unreachable' | 'timeout';

export interface ReadyAnswer {
  ready: boolean;
  body: JsonObject;
}

export interface ReadinessOptions {
  /** A result is reused this long, so a load balancer's probes (several, from several balancers) make one check. */
  cacheMs: number;
  /** The longest a probe may take: a database that does not answer makes the node unready, not the probe hang. */
  timeoutMs: number;
  /** True once the node drains: unready at once, whatever the checks say. */
  draining(): boolean;
  now?: () => number;
}

/**
 * The node's readiness: every check is `ok` and the node is not draining. The checks run together,
 * each bounded by the timeout; their result is cached, and probes that come while a check runs share it.
 */
export class Readiness {
  readonly #checks: readonly ReadinessCheck[];
  readonly #options: ReadinessOptions;
  readonly #now: () => number;
  #states: Promise<Record<string, CheckState>> | undefined;
  #checkedAt = -Infinity;

  constructor(checks: readonly ReadinessCheck[], options: ReadinessOptions) {
    this.#checks = checks;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  async answer(): Promise<ReadyAnswer> {
    const draining = this.#options.draining();
    const states = draining ? {} : await this.#current();
    const ready = !draining && Object.values(states).every((state) => state === 'ok');
    return { ready, body: { status: ready ? 'ready' : 'unready', checks: { ...states, draining } } };
  }

  #current(): Promise<Record<string, CheckState>> {
    const now = this.#now();
    if (this.#states === undefined || now - this.#checkedAt >= this.#options.cacheMs) {
      this.#checkedAt = now;
      this.#states = this.#run();
    }
    return this.#states;
  }

  async #run(): Promise<Record<string, CheckState>> {
    const states = await Promise.all(this.#checks.map((check) => bounded(check, this.#options.timeoutMs)));
    return Object.fromEntries(this.#checks.map((check, index) => [check.name, states[index]!]));
  }
}

async function bounded(check: ReadinessCheck, timeoutMs: number): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const probed = (async (): Promise<CheckState> => {
    await check.probe();
    return 'ok';
  })().catch((): CheckState => 'unreachable');
  try {
    return await Promise.race([probed, late]);
  } finally {
    clearTimeout(timer);
  }
}
