// A node of several worker processes on one port (`server.workers`, node:cluster): this is its primary.
// It starts what must be one per node (the embedded sim, the metrics listener), forks the workers, which
// each run the whole gateway (bin/start-gateway.ts), and holds for them what must be counted once per node
// where no Redis holds it: the rate-limit windows and the prompt-cache registry (cluster/shared-host.ts),
// and the relay of key revocations. The ledger needs nothing of it: every worker writes the one store, in
// transactions under its write lock, each worker with its own node lease, so the holds of a worker that died
// are released by the others' sweep. A worker that dies is replaced; a drain drains every worker.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { SharedHost } from '../cluster/shared-host.js';
import type { StartedMessage } from '../cluster/protocol.js';
import type { LoadedConfig } from '../config/load.js';
import { dataDirOf } from '../config/data-dir.js';
import { loadThinkingSecret } from '../config/thinking-secret.js';
import { createLogger } from '../http/log.js';
import { MemoryWindow } from '../plugins/ratelimit/memory-window.js';
import { SHARED_WINDOW_KIND } from '../plugins/ratelimit/shared-window.js';
import { MemoryRegistry } from '../plugins/promptcache/registry.js';
import { SHARED_REGISTRY_KIND } from '../plugins/promptcache/shared-registry.js';
import type { RunningSim } from '../sim/server.js';
import { startMetricsServer, type RunningMetricsServer } from './metrics-server.js';
import { startEmbeddedSim } from './embedded-sim.js';
import type { RunningGateway } from './start-gateway.js';
import { WORKER_VARIABLE } from './worker-variable.js';

/** A worker that dies is replaced after this long (so a worker that dies at once does not spin). */
const RESPAWN_DELAY_MS = 1000;
/** How long past its drain's time a worker has to exit before it is cut, and then killed. */
const STOP_GRACE_MS = 5000;

export async function startWorkers(loaded: LoadedConfig, count: number): Promise<RunningGateway> {
  const { config } = loaded;
  const log = createLogger(config.log.level);
  const env: Record<string, string> = {};
  let sim: RunningSim | undefined;
  if (config.upstream.urls.length === 0) {
    sim = await startEmbeddedSim(config);
    env.GATEWAY_UPSTREAM_URL = `${sim.url}/v1`;
    log.info(
      { upstream: env.GATEWAY_UPSTREAM_URL },
      'no upstream configured: the built-in reference upstream (sim) runs in the primary',
    );
  }
  // Made once here, so that the workers read one secret rather than race to write it.
  await loadThinkingSecret(dataDirOf(loaded));
  const host = new SharedHost({
    [SHARED_WINDOW_KIND]: (seconds) => new MemoryWindow(Number(seconds)),
    [SHARED_REGISTRY_KIND]: (maxEntries) =>
      new MemoryRegistry(maxEntries === '' ? {} : { maxEntries: Number(maxEntries) }),
  });
  let metricsServer: RunningMetricsServer | undefined;
  if (config.metrics.port !== undefined) {
    const aggregator = new AggregatorRegistry();
    metricsServer = await startMetricsServer(
      { render: () => aggregator.clusterMetrics(), contentType: aggregator.contentType },
      { host: config.metrics.host, port: config.metrics.port },
      log,
    );
    log.info({ url: `${metricsServer.url}/metrics` }, 'metrics listening (every worker summed)');
  }
  cluster.setupPrimary({ serialization: 'advanced' });
  const pool = new WorkerPool(host, env, log);
  let urls: Record<string, string>;
  try {
    urls = await pool.start(count);
  } catch (error) {
    await pool.stop('cut', 0);
    await metricsServer?.close();
    await sim?.close();
    throw error;
  }
  log.info({ workers: count }, 'workers listening');
  let stopping: Promise<void> | undefined;
  const stop = (order: 'drain' | 'cut'): Promise<void> => {
    stopping ??= (async () => {
      const failed = await pool.stop(order, order === 'drain' ? config.server.drain_timeout_ms : 0);
      await metricsServer?.close();
      await sim?.close();
      if (failed > 0) throw new Error(`${failed} workers did not stop cleanly`);
    })();
    return stopping;
  };
  return {
    url: urls.gateway!,
    upstreamUrls: sim === undefined ? config.upstream.urls : [env.GATEWAY_UPSTREAM_URL!],
    ...(urls.admin !== undefined ? { adminUrl: urls.admin } : {}),
    ...(urls.console !== undefined ? { consoleUrl: urls.console } : {}),
    ...(metricsServer !== undefined ? { metricsUrl: metricsServer.url } : {}),
    log,
    close: () => {
      host.order('cut');
      return stop('cut');
    },
    drain: () => stop('drain'),
    cutDrain: () => host.order('cut'),
  };
}

/** The workers: forked, told apart from a failed start, replaced when they die, stopped all together. */
class WorkerPool {
  readonly #host: SharedHost;
  readonly #env: Record<string, string>;
  readonly #log: Logger;
  readonly #running = new Set<Worker>();
  #stopping = false;
  /** Workers that exited other than cleanly during the stop. */
  #failed = 0;

  constructor(host: SharedHost, env: Record<string, string>, log: Logger) {
    this.#host = host;
    this.#env = env;
    this.#log = log;
  }

  /** Forks `count` workers and resolves with their URLs once every one listens; rejects if one exits first. */
  async start(count: number): Promise<Record<string, string>> {
    const started = await Promise.all(Array.from({ length: count }, (_, index) => this.#fork(index + 1)));
    return started[0]!;
  }

  /**
   * Orders every worker to drain (or cut) and resolves, once all exited, with how many did not exit 0. A
   * worker still there a grace after its drain's time is told to cut, and one still there after another
   * grace is killed (its exit counts as failed): the node's stop is bounded whatever a worker does.
   */
  async stop(order: 'drain' | 'cut', drainMs: number): Promise<number> {
    this.#stopping = true;
    const exits = [...this.#running].map(
      (worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve()))),
    );
    this.#host.order(order);
    const cut = setTimeout(() => this.#host.order('cut'), drainMs + STOP_GRACE_MS);
    const kill = setTimeout(
      () => {
        for (const worker of this.#running) {
          this.#log.error({ pid: worker.process.pid }, 'a worker did not stop: killed');
          worker.process.kill('SIGKILL');
        }
      },
      drainMs + 2 * STOP_GRACE_MS,
    );
    await Promise.all(exits);
    clearTimeout(cut);
    clearTimeout(kill);
    return this.#failed;
  }

  #fork(index: number, replacing = false): Promise<Record<string, string>> {
    const worker = cluster.fork({ ...this.#env, [WORKER_VARIABLE]: String(index) });
    this.#running.add(worker);
    return new Promise((resolve, reject) => {
      let listening = false;
      this.#host.attach(worker, (message) => {
        if (message.gateway !== 'started') return;
        listening = true;
        resolve((message as StartedMessage).urls);
      });
      worker.once('exit', (code, signal) => {
        this.#running.delete(worker);
        this.#host.detach(worker);
        if (!listening) reject(new Error(`worker ${index} exited (${signal ?? code}) before it listened`));
        if (this.#stopping) {
          if (code !== 0) this.#failed += 1;
        } else if (listening || replacing) {
          this.#log.error({ worker: index, code, signal }, 'a worker died: starting another in its place');
          this.#replace(index);
        }
      });
    });
  }

  /** Forks a worker in the place of one that died; one that dies before it listens is replaced in its turn. */
  #replace(index: number): void {
    setTimeout(() => {
      if (!this.#stopping) this.#fork(index, true).catch(() => undefined);
    }, RESPAWN_DELAY_MS);
  }
}
