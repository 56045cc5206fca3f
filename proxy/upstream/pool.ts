import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import { GatewayError } from '../../core/errors.js';
import { Replica } from './replica.js';
import { chooseReplica, type Routing } from './replica-choice.js';
import type { UpstreamErrorKind } from './replica-metrics.js';
import { CONNECTION_FAILURES, errorCode } from '../../core/upstream-errors.js';
import { UpstreamResponse } from './upstream-response.js';

export interface UpstreamPoolOptions {
  urls: string[];
  apiKey: string | undefined;
  connections: number;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  retries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  unhealthyMs: number;
  /** Longest wait for a free connection of a replica; then 503 upstream_overloaded. */
  queueTimeoutMs: number;
  /** How a replica is chosen (replica-choice.ts); affinity by default. */
  routing?: Routing;
  /** Each URL's capacity relative to the others' (positive integers, one per URL); all 1 by default. */
  weights?: readonly number[];
  /** Affinity's load bound: a conversation's replica takes it while within this many times its share (≥ 1; 2 by default). */
  affinityBound?: number;
  /** The clock (Unix ms) replicas' cool-downs run on; Date.now by default. */
  now?: () => number;
  /** The node's metrics, when they are on: each replica's requests, retries, errors, first bytes and waits. */
  metrics?: GatewayMetrics | undefined;
}

/** What the pool's caller tells of a request beyond its body. */
export interface PostInit {
  signal: AbortSignal;
  headers: Record<string, string>;
  /** The request's conversation key (affinity-key.ts), asked only when a replica is chosen by it. */
  affinity?: () => string | undefined;
}

/**
 * The upstream replicas: routing by load and conversation (replica-choice.ts), passive health (a replica
 * that fails a connection or answers 502/503/504 is taken out for a while) beside the active checks'
 * (health-checks.ts), retries of connection failures with exponential backoff and full jitter, before the
 * first byte only, and a bounded wait for a connection when every one of a replica's is busy.
 */
export class UpstreamPool {
  readonly replicas: Replica[];
  readonly #options: UpstreamPoolOptions;
  readonly #now: () => number;
  #turn = 0;
  /** The calls under way, for `cut`. */
  readonly #live = new Set<UpstreamResponse>();
  #cut: GatewayError | undefined;

  readonly #routing: Routing;
  readonly #bound: number;

  constructor(options: UpstreamPoolOptions) {
    if (options.urls.length === 0) throw new Error('the upstream pool needs at least one URL');
    if (options.weights !== undefined && options.weights.length !== options.urls.length)
      throw new Error('the upstream pool needs one weight per URL');
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#routing = options.routing ?? 'affinity';
    this.#bound = options.affinityBound ?? 2;
    this.replicas = options.urls.map((url, i) => new Replica(url, options, options.weights?.[i] ?? 1));
  }

  /** POSTs a JSON body to `${basePath}${path}` on the best replica. */
  async post(path: string, body: string, init: PostInit): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    // The key is read once, when first needed: a retry ranks the replicas by the same key.
    let key: { value: string | undefined } | undefined;
    const affinity = init.affinity && (() => (key ??= { value: init.affinity!() }).value);
    for (let attempt = 0; ; attempt++) {
      if (init.signal.aborted) throw new Error('the client went away');
      if (this.#cut !== undefined) throw this.#cut;
      const replica = this.#pick(affinity);
      const metrics = replica.metrics;
      replica.inFlight += 1;
      const response = new UpstreamResponse((failure) => {
        replica.inFlight -= 1;
        this.#live.delete(response);
        init.signal.removeEventListener('abort', abort);
        // A response that had started and then broke; a failure before its head is counted below.
        if (metrics !== undefined && failure !== undefined && response.statusCode !== 0)
          metrics.broke(errorCode(failure) === 'UND_ERR_BODY_TIMEOUT' ? 'timeout' : 'failed');
      });
      response.replica = replica;
      this.#live.add(response);
      const abort = (): void => response.abort(new Error('the client went away'));
      init.signal.addEventListener('abort', abort, { once: true });
      const dispatchedAt = metrics === undefined ? 0 : performance.now();
      replica.pool.dispatch(
        {
          method: 'POST',
          path: replica.basePath + path,
          headers,
          body,
          headersTimeout: this.#options.firstByteTimeoutMs,
          bodyTimeout: this.#options.idleTimeoutMs,
        },
        response,
      );
      // Most requests get a connection inside dispatch(); only a queued one needs a timer.
      const queueTimer = response.queued ? this.#queueBound(response) : undefined;
      // Without a connection yet it is opening one, or in the pool's queue: every connection busy (a
      // wait). The stats walk every connection, so they are read only then.
      if (queueTimer !== undefined && metrics !== undefined && replica.pool.stats.queued > 0) metrics.queued();
      try {
        await response.started;
      } catch (error) {
        metrics?.unanswered(init.signal.aborted ? undefined : errorKind(error));
        if (init.signal.aborted || error instanceof GatewayError) throw error;
        const code = errorCode(error);
        if (code === 'UND_ERR_HEADERS_TIMEOUT') {
          replica.markFailure(this.#now());
          throw new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', 'The upstream did not answer in time.');
        }
        if (!CONNECTION_FAILURES.has(code))
          throw new GatewayError('GW_ERR_UPSTREAM_FAILED', 'The upstream request failed.');
        replica.markFailure(this.#now());
        if (attempt >= this.#options.retries) {
          throw new GatewayError('GW_ERR_UPSTREAM_UNREACHABLE', 'The upstream model server cannot be reached.');
        }
        metrics?.retried();
        await sleep(this.#backoff(attempt), undefined, { signal: init.signal });
        continue;
      } finally {
        clearTimeout(queueTimer);
      }
      metrics?.answered(response.statusCode, (performance.now() - dispatchedAt) / 1000);
      if (response.statusCode === 502 || response.statusCode === 503 || response.statusCode === 504)
        replica.markFailure(this.#now());
      else replica.markSuccess();
      return response;
    }
  }

  /**
   * Fails every call under way with `reason`, as a broken connection would (a stream ends with its
   * dialect's error event; a call not yet answered gets the error), and refuses later calls with it:
   * the end of a stopping node's drain.
   */
  cut(reason: GatewayError): void {
    this.#cut = reason;
    for (const response of this.#live) response.abort(reason);
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.pool.close()));
  }

  /** The routing's replica among the healthy ones with room; if none is healthy, the one back soonest. */
  #pick(affinity: (() => string | undefined) | undefined): Replica {
    const replicas = this.replicas;
    if (replicas.length === 1) return replicas[0]!;
    const now = this.#now();
    const healthy = replicas.map((replica) => replica.healthyAt(now));
    // A replica its server's metrics show full is passed by while another healthy one has room.
    const room = replicas.some((replica, i) => healthy[i] && !replica.full);
    const candidates = replicas.map((replica, i) => ({
      label: replica.label,
      inFlight: replica.inFlight,
      weight: replica.weight,
      healthy: healthy[i]! && !(room && replica.full),
    }));
    const choice = chooseReplica(candidates, {
      routing: this.#routing,
      key: this.#routing === 'affinity' ? affinity?.() : undefined,
      bound: this.#bound,
      turn: this.#turn++ % replicas.length,
    });
    if (choice.index === -1)
      return replicas.reduce((soonest, replica) => (replica.downUntil < soonest.downUntil ? replica : soonest));
    const replica = replicas[choice.index]!;
    if (choice.affinity !== undefined) replica.metrics?.routed(choice.affinity);
    return replica;
  }

  /** Abandons the request if it is still waiting for a connection after `queueTimeoutMs`. */
  #queueBound(response: UpstreamResponse): NodeJS.Timeout {
    return setTimeout(() => {
      if (response.queued)
        response.abort(
          new GatewayError(
            'GW_ERR_UPSTREAM_OVERLOADED',
            'Every connection to the model server is busy; try again shortly.',
          ),
        );
    }, this.#options.queueTimeoutMs);
  }

  #backoff(attempt: number): number {
    const ceiling = Math.min(this.#options.retryMaxMs, this.#options.retryBaseMs * 2 ** attempt);
    return Math.random() * ceiling;
  }
}

/**
 * The kind of an upstream call that got no response: the pool's queue timeout, the upstream's
 * silence, a connection that failed; undefined when the gateway let it go (a shutdown's cut).
 */
function errorKind(error: unknown): UpstreamErrorKind | undefined {
  if (error instanceof GatewayError) return error.code === 'GW_ERR_UPSTREAM_OVERLOADED' ? 'overloaded' : undefined;
  const code = errorCode(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return 'timeout';
  return CONNECTION_FAILURES.has(code) ? 'connect' : 'failed';
}
