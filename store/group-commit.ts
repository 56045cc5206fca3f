// Group commit: units of work queued in one turn of the event loop run in one transaction, and each
// caller's promise settles only after that transaction commits (so "awaited" still means "durable").
// On SQLite a commit is most of a small transaction's cost (a WAL append per touched page); under load
// one commit serves every request that finished in the same turn. A unit that fails makes the batch
// roll back; the units are then retried one transaction each, so one bad unit fails alone.
import type { SqlRunner, Transactor } from './transactor.js';

export type Work<T> = (sql: SqlRunner) => Promise<T>;

interface Queued {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class GroupCommit {
  readonly #transact: Transactor;
  #queue: Queued[] = [];

  constructor(transact: Transactor) {
    this.#transact = transact;
  }

  /** Runs `work` in the next batch's transaction; resolves with its result once the batch committed. */
  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => void this.#flush());
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    let results: unknown[];
    try {
      results = await this.#transact(async (sql) => {
        const out: unknown[] = [];
        for (const item of batch) out.push(await item.work(sql));
        return out;
      });
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else for (const item of batch) this.#transact(item.work).then(item.resolve, item.reject);
      return;
    }
    batch.forEach((item, index) => item.resolve(results[index]));
  }
}
