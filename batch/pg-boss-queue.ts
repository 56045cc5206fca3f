// The fleet's line queue on PostgreSQL (line-queue.ts): pg-boss, a job queue on the store's own database, over the
// store's own connections. Each line of a batch is one job, inserted in the transaction that records the batch.
// A node fetches jobs (pg-boss hands each to one node, SKIP LOCKED), claims the line each names in the store, runs
// it, and completes the job. pg-boss has no heartbeat, so a job's expiry cannot say that its node died; the
// store's claim, renewed while the line runs, says that. So a job that expires while its line's claim is still
// live is put back for when the claim would run out, and a job whose line ended is completed unrun: the claim in
// the store stays the one truth of who runs a line, and pg-boss says which line a node takes next, across nodes.
// Why pg-boss, not graphile-worker: docs/batches.md (measured by bench/batch-queue.ts).
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { BatchRecord, NewLine } from '../store/batches.js';
import type { LineOutcome } from '../store/batch-lines.js';
import type { Store } from '../store/store.js';
import { retryConflicts } from '../store/transaction-retry.js';
import { StoreLineQueue, type ClaimScope, type QueuedLine } from './line-queue.js';
import { poolDb, transactionDb } from './pg-boss-db.js';

/** The queue of batch lines, one for the fleet. */
const QUEUE = 'batch-lines';

/** A line's job names its line. */
interface LineJob {
  batchId: string;
  lineNo: number;
}

/** How long the job of a line whose batch a round did not run waits before it is looked at again. */
const RECHECK_MS = 1000;

/** Jobs inserted per statement when a batch is made. */
const JOBS_PER_INSERT = 5_000;

/**
 * Retries of a job whose node did not complete it: its line's attempts are counted and bounded by the worker,
 * so pg-boss hands a job out until its line ends.
 */
const RETRY_LIMIT = 1_000_000;

export interface PgBossQueueOptions {
  /** How long a node's claim on a line lasts unless renewed. */
  leaseMs: number;
}

export class PgBossLineQueue extends StoreLineQueue {
  readonly #boss: PgBoss;
  readonly #expireSeconds: number;

  private constructor(store: Store, owner: string, boss: PgBoss, expireSeconds: number) {
    super(store, owner);
    this.#boss = boss;
    this.#expireSeconds = expireSeconds;
  }

  /** Starts pg-boss on the store's database (its schema `pgboss`, made or migrated on first start) and the queue. */
  static async start(store: Store, owner: string, options: PgBossQueueOptions, log: Logger): Promise<PgBossLineQueue> {
    // A job not completed within two leases is looked at again: its line's claim ran out, or it is put back.
    const expireSeconds = Math.max(1, Math.ceil((2 * options.leaseMs) / 1000));
    const boss = new PgBoss({
      db: poolDb(store),
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: expireSeconds,
      expireInSeconds: expireSeconds,
      retryLimit: RETRY_LIMIT,
      retryDelay: 0,
    });
    boss.on('error', (error) => log.warn({ err: error }, 'batch queue: pg-boss reported an error'));
    await boss.start();
    // Made once for the fleet; nodes starting at once can deadlock making its table, and the loser tries again.
    await retryConflicts(() => boss.createQueue(QUEUE, { name: QUEUE, policy: 'standard' }));
    return new PgBossLineQueue(store, owner, boss, expireSeconds);
  }

  /** The batch and its lines, and one job per line, in one transaction. */
  override create(batch: BatchRecord, lines: readonly NewLine[]): Promise<void> {
    return this.store.batches.create(batch, lines, async (tx) => {
      for (let start = 0; start < lines.length; start += JOBS_PER_INSERT) {
        const jobs = lines
          .slice(start, start + JOBS_PER_INSERT)
          .map((_, i) => this.#job({ batchId: batch.id, lineNo: start + i }));
        await this.#boss.insert(jobs, { db: transactionDb(tx) });
      }
    });
  }

  /**
   * Fetches jobs until `count` lines are claimed or the queue has none to give: a job of a line that ended is
   * completed unrun; one of a batch this round does not run (paused, or not in its list), or of a line another
   * node's live claim holds, is put back for later.
   */
  override async claim(count: number, scope: ClaimScope, now: number, leaseUntil: number): Promise<QueuedLine[]> {
    const claimed: QueuedLine[] = [];
    // Another round only while the last one claimed or completed a job: one that only put jobs back stops (a job
    // put back for a moment this node's clock sees as past would come straight back).
    for (let progressed = true; progressed && claimed.length < count;) {
      const jobs = await this.#boss.fetch<LineJob>(QUEUE, { batchSize: count - claimed.length });
      progressed = false;
      for (const job of jobs) {
        const outcome = await this.#claimJob(job, scope, now, leaseUntil);
        if (outcome === 'put back') continue;
        progressed = true;
        if (outcome !== 'completed') claimed.push(outcome);
      }
    }
    return claimed;
  }

  /** Claims the job's line; or completes the job, its line ended; or puts it back for later. */
  async #claimJob(
    job: PgBoss.Job<LineJob>,
    scope: ClaimScope,
    now: number,
    leaseUntil: number,
  ): Promise<QueuedLine | 'completed' | 'put back'> {
    const { batchId, lineNo } = job.data;
    const pausedUntil = scope.pausedUntil.get(batchId) ?? 0;
    if (!scope.runnable.has(batchId) || pausedUntil > now) {
      // A batch this round does not run: paused, or not in the list of batches it read (made since, or ended).
      // The job waits, unless its line ended.
      const state = await this.store.batchLines.stateOf(batchId, lineNo);
      if (state !== 'queued' && state !== 'running') return this.#complete(job.id);
      await this.#putBack(job.id, job.data, Math.max(pausedUntil, now + RECHECK_MS));
      return 'put back';
    }
    const claim = await this.store.batchLines.claimLine(batchId, lineNo, this.owner, now, leaseUntil);
    if ('claimed' in claim) return { ...claim.claimed, jobId: job.id };
    if ('ended' in claim) return this.#complete(job.id);
    await this.#putBack(job.id, job.data, claim.claimedElsewhereUntil);
    return 'put back';
  }

  async #complete(jobId: string): Promise<'completed'> {
    await this.#boss.complete(QUEUE, jobId);
    return 'completed';
  }

  /**
   * Completes the job only if the outcome was kept: a claim that ran out may mean another node fetched the same job
   * again and runs the line, and the job must outlive that node too.
   */
  override async finish(line: QueuedLine, outcome: LineOutcome, now: number): Promise<boolean> {
    const kept = await super.finish(line, outcome, now);
    if (kept && line.jobId !== undefined) await this.#boss.complete(QUEUE, line.jobId);
    return kept;
  }

  override async release(line: QueuedLine, notBefore: number): Promise<void> {
    await super.release(line, notBefore);
    if (line.jobId !== undefined)
      await this.#putBack(line.jobId, { batchId: line.batchId, lineNo: line.lineNo }, notBefore);
  }

  override async close(): Promise<void> {
    await this.#boss.stop({ graceful: false, close: false });
  }

  /** Completes the job and queues its line again from `notBefore` (Unix ms), in one transaction. */
  async #putBack(jobId: string, line: LineJob, notBefore: number): Promise<void> {
    await this.store.db.transaction().execute(async (tx) => {
      const db = transactionDb(tx);
      await this.#boss.complete(QUEUE, jobId, {}, { db });
      await this.#boss.insert([{ ...this.#job(line), startAfter: new Date(notBefore) }], { db });
    });
  }

  #job(line: LineJob): PgBoss.JobInsert<LineJob> {
    return {
      name: QUEUE,
      data: line,
      expireInSeconds: this.#expireSeconds,
      retryLimit: RETRY_LIMIT,
      retryDelay: 0,
    };
  }
}
