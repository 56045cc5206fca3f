// The batch worker of one node (issue #29): it claims lines of the active batches with a lease (where it finds
// them, the store or pg-boss's jobs, is its LineQueue: line-queue.ts), runs each
// through the exchange lifecycle (line-door.ts), keeps its result, and moves each batch to its end. Every
// node of a fleet runs one, over the shared store: a line is run by the node holding its claim, a claim is
// renewed while its line runs, and a node killed mid-line loses its claims when they run out (`lease_ms`),
// so another node takes the line up as a new attempt, billed only if no earlier attempt was (batch-lines.ts).
// Lines are low priority by construction: a node runs up to `concurrency` lines while it serves no live
// request and one while it does, starts one only while each upstream replica has a free connection (so no
// live request waits in the pool's queue behind it), and a line's pool of rate limits is its organization's
// batch pool (plugins/ratelimit). A cancel ends the lines not started at once (store/batches.ts); every node
// sees it at its next tick and starts no more of them.
import type { Logger } from 'pino';
import type { WireProfile } from '../core/dialect.js';
import type { Route } from '../core/route.js';
import type { ExchangeRuntime } from '../proxy/exchange/run.js';
import { attemptId } from '../store/batch-lines.js';
import type { BatchRecord } from '../store/batches.js';
import type { Store } from '../store/store.js';
import type { BatchMetrics } from '../telemetry/metrics.js';
import { finalizeBatch } from './finalize.js';
import { lineBody } from './input-line.js';
import type { LineQueue, QueuedLine } from './line-queue.js';
import { runLine, type LineAnswer } from './line-door.js';
import { deleteExpired } from './retention.js';
import type { RanResult } from './results.js';
import type { FileStorage } from './storage/file-storage.js';

export interface BatchWorkerOptions {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  /** How long ended batches and their files are kept. */
  retentionMs: number;
}

export interface BatchWorkerParts {
  store: Store;
  /** Where the lines to run come from, and their claims (line-queue.ts). */
  queue: LineQueue;
  storage: FileStorage;
  /** The node's exchange runtime, which every line runs in. */
  runtime: () => ExchangeRuntime;
  /** The generation route of a batch's endpoint. */
  routeOf: (endpoint: string) => Route | undefined;
  /** The wire profile of a batch's lines. */
  wire: WireProfile;
  /** Whether each upstream replica has a free connection: only then does a line start. */
  upstreamFree: () => boolean;
  /** Upstream calls under way on this node, batch lines' included. */
  upstreamCalls: () => number;
  log: Logger;
  metrics: BatchMetrics | undefined;
  now: () => number;
}

/** Attempts at a line that could not be run (not a line answered with an error) before it ends errored. */
const MAX_ATTEMPTS = 5;

/** The result body of a line that could not be run MAX_ATTEMPTS times. */
function cannotRun(attempts: number): Record<string, unknown> {
  return {
    error: {
      type: 'internal_error',
      code: 'internal_error',
      message: `The gateway could not run this line (${attempts} attempts); its log says why.`,
    },
  };
}

/** How often retention looks for ended batches and files to delete. */
const RETENTION_EVERY_MS = 3_600_000;

interface RunningLine {
  line: QueuedLine;
  /** Settles once the line has ended and its outcome is kept. */
  done: Promise<void>;
}

/**
 * A line is never abandoned once it started: a cancel stops the lines not started, a stopping node lets its
 * lines end (the upstream's timeouts bound them), so a line is billed for a whole answer or not at all.
 */
const RUNS_TO_ITS_END = new AbortController().signal;

export class BatchWorker {
  readonly #parts: BatchWorkerParts;
  readonly #options: BatchWorkerOptions;
  readonly #running = new Map<string, RunningLine>();
  /** Batches whose pool's rate limit said wait: no claims for them until then (Unix ms). */
  readonly #pausedUntil = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #nextRetention = 0;

  constructor(parts: BatchWorkerParts, options: BatchWorkerOptions) {
    this.#parts = parts;
    this.#options = options;
  }

  start(): void {
    this.#schedule(0);
  }

  /** Looks for work now (a batch was made, a line ended), rather than at the next poll. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#ticking !== undefined) {
      this.#again = true;
      return;
    }
    this.#schedule(0);
  }

  /** Takes no more lines and waits for the ones running to end (their results kept, their holds settled). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#ticking;
    await Promise.all([...this.#running.values()].map((running) => running.done));
    await this.#parts.queue.close();
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), delayMs);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (this.#stopped || this.#ticking !== undefined) return;
    this.#ticking = this.#work()
      .catch((error: unknown) => this.#parts.log.warn({ err: error }, 'batch worker: a round of work failed'))
      .finally(() => {
        this.#ticking = undefined;
        if (this.#stopped) return;
        const again = this.#again;
        this.#again = false;
        // While lines run, their claims are renewed well before they run out.
        this.#schedule(again ? 0 : Math.min(this.#options.pollMs, this.#options.leaseMs / 3));
      });
    await this.#ticking;
  }

  async #work(): Promise<void> {
    const now = this.#parts.now();
    await this.#renewClaims(now);
    if (now >= this.#nextRetention) {
      this.#nextRetention = now + RETENTION_EVERY_MS;
      await deleteExpired(this.#parts.store, this.#parts.storage, now, this.#options.retentionMs, this.#parts.log);
    }
    const active = await this.#parts.store.batches.active();
    for (const batch of active) await this.#advance(batch, now);
    await this.#claim(active, now);
    // A pause outlives no batch.
    for (const batchId of this.#pausedUntil.keys())
      if (!active.some((batch) => batch.id === batchId)) this.#pausedUntil.delete(batchId);
    this.#parts.metrics?.linesRunning.set(this.#running.size);
  }

  /** One step of the batch: end the lines it no longer runs (cancelled, expired), or bring it to its end. */
  async #advance(batch: BatchRecord, now: number): Promise<void> {
    const { store } = this.#parts;
    if (batch.status === 'finalizing') {
      // Its node may have died while writing the results: after a lease's time, any node finishes the job.
      if ((batch.finalizingAt ?? 0) + this.#options.leaseMs < now) await this.#finalize(batch, now);
      return;
    }
    if (batch.status === 'cancelling') {
      // Its lines not started were cancelled with it; those running end on their own.
      await store.batchLines.endAbandoned(batch.id, 'canceled', now);
    } else if (now >= batch.expiresAt) {
      await store.batches.expireQueued(batch.id, now);
      await store.batchLines.endAbandoned(batch.id, 'expired', now);
    }
    const counts = await store.batches.counts(batch.id);
    if (counts.queued === 0 && counts.running === 0) await this.#finalize(batch, now);
  }

  /**
   * The lines this node may run now: `concurrency` while it serves no live request, one while it does (batch
   * work yields to live traffic, and still moves on).
   */
  #budget(): number {
    const live = this.#parts.upstreamCalls() - this.#running.size;
    return live > 0 ? 1 : this.#options.concurrency;
  }

  /** Claims and starts the lines this node may run now, of the batches in progress and not paused. */
  async #claim(active: readonly BatchRecord[], now: number): Promise<void> {
    const free = this.#budget() - this.#running.size;
    if (free <= 0 || this.#stopped || !this.#parts.upstreamFree()) return;
    const runnable = new Map(
      active
        .filter((batch) => batch.status === 'in_progress' && now < batch.expiresAt)
        .filter((batch) => (this.#pausedUntil.get(batch.id) ?? 0) <= now)
        .map((batch) => [batch.id, batch]),
    );
    const lines = await this.#parts.queue.claim(
      free,
      { runnable: new Set(runnable.keys()), pausedUntil: this.#pausedUntil },
      now,
      now + this.#options.leaseMs,
    );
    for (const line of lines) this.#start(runnable.get(line.batchId)!, line);
  }

  async #finalize(batch: BatchRecord, now: number): Promise<void> {
    const ended = await finalizeBatch(this.#parts.store, this.#parts.storage, batch, now);
    if (ended === undefined) return;
    this.#parts.metrics?.batchesEnded.inc({ status: ended });
    this.#parts.log.info({ batchId: batch.id, orgId: batch.orgId, status: ended }, 'batch ended');
  }

  #start(batch: BatchRecord, line: QueuedLine): void {
    const key = `${line.batchId}.${line.lineNo}`;
    const done = this.#run(batch, line)
      .catch((error: unknown) =>
        this.#parts.log.error({ err: error, batchId: batch.id, line: line.lineNo }, 'batch worker: a line failed'),
      )
      .finally(() => {
        this.#running.delete(key);
        this.#parts.metrics?.linesRunning.set(this.#running.size);
        this.wake();
      });
    this.#running.set(key, { line, done });
  }

  async #run(batch: BatchRecord, line: QueuedLine): Promise<void> {
    const { store, queue, storage, log, metrics } = this.#parts;
    const id = attemptId(line.batchId, line.lineNo, line.attempt);
    let answer: LineAnswer;
    try {
      const route = this.#parts.routeOf(batch.endpoint);
      if (route === undefined) throw new Error(`no generation route serves ${batch.endpoint}`);
      const text = (await storage.readRange(batch.inputObject, line.offset, line.length)).toString('utf8');
      const prepaid = await store.batchLines.billedBefore(line);
      answer = await runLine(this.#parts.runtime(), {
        id,
        route,
        body: lineBody(text),
        batchLine: { batchId: batch.id, keyId: batch.keyId, prepaid },
        signal: RUNS_TO_ITS_END,
        wire: this.#parts.wire,
      });
    } catch (error) {
      log.error({ err: error, batchId: batch.id, line: line.lineNo }, 'batch worker: a line could not be run');
      // Its claim runs out and a node takes it up again; a line that fails every time (its input gone) ends.
      if (line.attempt < MAX_ATTEMPTS) return;
      const failed: RanResult = { status_code: 500, request_id: id, body: cannotRun(line.attempt) };
      await queue.finish(
        line,
        { state: 'errored', statusCode: 500, result: JSON.stringify(failed) },
        this.#parts.now(),
      );
      metrics?.lines.inc({ outcome: 'errored' });
      return;
    }
    if (answer.status === 429 && answer.headers['x-should-retry'] !== 'false') {
      // The batch pool's limit (or a cap) says wait: the line goes back to the queue, the batch waits.
      const retryAfterS = Number(answer.headers['retry-after'] ?? 1);
      const pausedUntil = this.#parts.now() + Math.max(1, retryAfterS) * 1000;
      this.#pausedUntil.set(batch.id, pausedUntil);
      await queue.release(line, pausedUntil);
      metrics?.lines.inc({ outcome: 'deferred' });
      return;
    }
    const result: RanResult = { status_code: answer.status, request_id: id, body: answer.body };
    const state = answer.status === 200 ? 'succeeded' : 'errored';
    const kept = await queue.finish(
      line,
      { state, statusCode: answer.status, result: JSON.stringify(result) },
      this.#parts.now(),
    );
    metrics?.lines.inc({ outcome: kept ? state : 'lost_claim' });
  }

  /** Renews the claims of the lines this node runs, so no other node takes them up. */
  async #renewClaims(now: number): Promise<void> {
    const lines = [...this.#running.values()].map((running) => running.line);
    if (lines.length > 0) await this.#parts.queue.renew(lines, now + this.#options.leaseMs);
  }
}
