// Group commit: units of work queued in one turn of the event loop run in one transaction, and each
// caller's promise settles only after that transaction commits (so "awaited" still means "durable").
// On SQLite a commit is most of a small transaction's cost (a WAL append per touched page); under load
// one commit serves every request that finished in the same turn. A unit that fails makes the batch
// roll back; the units are then retried one transaction each, so one bad unit fails alone.
import type { Kysely, Transaction } from 'kysely';

export type Work<DB, T> = (trx: Transaction<DB>) => Promise<T>;

interface Queued<DB> {
  work: Work<DB, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class GroupCommit<DB> {
  readonly #db: Kysely<DB>;
  #queue: Array<Queued<DB>> = [];

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  /** Runs `work` in the next batch's transaction; resolves with its result once the batch committed. */
  run<T>(work: Work<DB, T>): Promise<T> {
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
      results = await this.#db.transaction().execute(async (trx) => {
        const out: unknown[] = [];
        for (const item of batch) out.push(await item.work(trx));
        return out;
      });
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else for (const item of batch) this.#db.transaction().execute(item.work).then(item.resolve, item.reject);
      return;
    }
    batch.forEach((item, index) => item.resolve(results[index]));
  }
}
