// Group commit: the operations queued in one turn of the event loop are written together, in one
// transaction, and each caller's promise settles only after that transaction commits (so "awaited"
// still means "durable"). On SQLite a commit is most of a small transaction's cost (a WAL append per
// touched page), and the writer, given the whole batch, can write it with a few statements rather than
// a few per operation: under load one commit serves every request that reached that point in the turn.
// One batch is written at a time: what arrives while a batch is on its way to a database server is the
// next batch. So a hot organization is one row update per batch, not a queue of small transactions
// each waiting for the last one's lock on its row (PostgreSQL: 8 times the CPU per request, measured).
// A failure rolls the batch back; its operations are then written one transaction each, in order, so
// one bad operation fails alone.
import type { SqlRunner, Transactor } from './transactor.js';

/** Writes a batch of operations in the transaction given; resolves with one result per operation, in order. */
export type BatchWriter<Op, R> = (sql: SqlRunner, ops: readonly Op[]) => Promise<R[]>;

export class GroupCommit<Op, R> {
  readonly #transact: Transactor;
  readonly #write: BatchWriter<Op, R>;
  #ops: Op[] = [];
  #resolves: Array<(result: R) => void> = [];
  #rejects: Array<(error: unknown) => void> = [];
  /** A batch is being written, or a flush is due this turn: new operations wait for the next batch. */
  #busy = false;

  constructor(transact: Transactor, write: BatchWriter<Op, R>) {
    this.#transact = transact;
    this.#write = write;
  }

  /** Queues `op` for the next batch; resolves with its result once the batch committed. */
  run(op: Op): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (!this.#busy) {
        this.#busy = true;
        setImmediate(() => void this.#flush());
      }
      this.#ops.push(op);
      this.#resolves.push(resolve);
      this.#rejects.push(reject);
    });
  }

  /** Writes the queued batch, then the one that queued meanwhile, until none is left. */
  async #flush(): Promise<void> {
    while (this.#ops.length > 0) {
      const ops = this.#ops;
      const resolves = this.#resolves;
      const rejects = this.#rejects;
      this.#ops = [];
      this.#resolves = [];
      this.#rejects = [];
      await this.#commit(ops, resolves, rejects);
    }
    this.#busy = false;
  }

  async #commit(
    ops: readonly Op[],
    resolves: ReadonlyArray<(result: R) => void>,
    rejects: ReadonlyArray<(error: unknown) => void>,
  ): Promise<void> {
    let results: R[];
    try {
      results = await this.#transact((sql) => this.#write(sql, ops));
    } catch (error) {
      if (ops.length === 1) rejects[0]!(error);
      else await this.#commitEachAlone(ops, resolves, rejects);
      return;
    }
    for (let index = 0; index < ops.length; index++) resolves[index]!(results[index] as R);
  }

  /**
   * A failed batch's operations, one transaction each and one after another in their order: run side by
   * side, two that contend (a duplicate row id) would succeed or fail by which reached the server first.
   */
  async #commitEachAlone(
    ops: readonly Op[],
    resolves: ReadonlyArray<(result: R) => void>,
    rejects: ReadonlyArray<(error: unknown) => void>,
  ): Promise<void> {
    for (const [index, op] of ops.entries()) {
      try {
        const [alone] = await this.#transact((sql) => this.#write(sql, [op]));
        resolves[index]!(alone as R);
      } catch (error) {
        rejects[index]!(error);
      }
    }
  }
}
