// How a node's batch worker gets lines to run (issue #29). The lines and their claims are rows of the store
// (store/batch-lines.ts): a line is run by the node whose claim on it is live, its outcome is written only under
// that claim, and a claim that runs out (its node died) lets any node take the line up as a new attempt. What
// differs is who says which line to take next. On SQLite, one node: the worker picks queued lines from the store
// itself (this file). On PostgreSQL, a fleet: a job queue on the same database (pg-boss, pg-boss-queue.ts) hands
// each line's job to one node, which then claims the line.
import type { BatchRecord, NewLine } from '../store/batches.js';
import type { ClaimedLine, LineOutcome } from '../store/batch-lines.js';
import type { Store } from '../store/store.js';

/** A line this node runs; `jobId` names its job when a job queue handed it out. */
export interface QueuedLine extends ClaimedLine {
  jobId?: string;
}

/** Which lines a claim may take: those of the runnable batches; a paused batch's lines wait until its time. */
export interface ClaimScope {
  runnable: ReadonlySet<string>;
  pausedUntil: ReadonlyMap<string, number>;
}

export interface LineQueue {
  /** This node's name on the claims it holds. */
  readonly owner: string;
  /** Records a new batch and its lines, and queues them. */
  create(batch: BatchRecord, lines: readonly NewLine[]): Promise<void>;
  /** Up to `count` lines of the scope's runnable batches, each claimed until `leaseUntil`. */
  claim(count: number, scope: ClaimScope, now: number, leaseUntil: number): Promise<QueuedLine[]>;
  /** Extends this node's claims on the lines it runs. */
  renew(lines: readonly QueuedLine[], leaseUntil: number): Promise<void>;
  /** Records the line's outcome if its claim is still this node's: whether it was. */
  finish(line: QueuedLine, outcome: LineOutcome, now: number): Promise<boolean>;
  /** Gives the line back, to be taken up again from `notBefore` (its batch's rate limit said wait). */
  release(line: QueuedLine, notBefore: number): Promise<void>;
  close(): Promise<void>;
}

/** The single node's queue: the worker takes the runnable batches' queued lines from the store, in order. */
export class StoreLineQueue implements LineQueue {
  readonly owner: string;
  protected readonly store: Store;

  constructor(store: Store, owner: string) {
    this.store = store;
    this.owner = owner;
  }

  create(batch: BatchRecord, lines: readonly NewLine[]): Promise<void> {
    return this.store.batches.create(batch, lines);
  }

  async claim(count: number, scope: ClaimScope, now: number, leaseUntil: number): Promise<QueuedLine[]> {
    const claimed: QueuedLine[] = [];
    for (const batchId of scope.runnable) {
      if (claimed.length >= count) break;
      claimed.push(
        ...(await this.store.batchLines.claim(batchId, this.owner, count - claimed.length, now, leaseUntil)),
      );
    }
    return claimed;
  }

  async renew(lines: readonly QueuedLine[], leaseUntil: number): Promise<void> {
    const byBatch = new Map<string, number[]>();
    for (const line of lines) byBatch.set(line.batchId, [...(byBatch.get(line.batchId) ?? []), line.lineNo]);
    for (const [batchId, lineNos] of byBatch)
      await this.store.batchLines.renew(batchId, this.owner, lineNos, leaseUntil);
  }

  finish(line: QueuedLine, outcome: LineOutcome, now: number): Promise<boolean> {
    return this.store.batchLines.finish(line, this.owner, outcome, now);
  }

  /** The line is queued again; the worker claims none of its batch's lines while the batch is paused. */
  release(line: QueuedLine, _notBefore: number): Promise<void> {
    return this.store.batchLines.release(line, this.owner);
  }

  async close(): Promise<void> {}
}
