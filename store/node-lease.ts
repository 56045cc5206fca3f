// A gateway node's lease on the shared store: a row in `nodes` with a random id, written at start and
// heartbeated every lease/3, deleted when the node closes. A node whose heartbeat is older than the
// lease died (kill -9, a lost machine): the orphan sweep of any other node releases its holds at once
// and then forgets it. Heartbeats carry the node's own clock, so nodes' clocks must agree (NTP) to well
// within the lease. A node that was only cut off and comes back writes its row again; its holds
// released meanwhile are settled without a second refund (plugins/meter/ledger.ts).
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { newId } from './ids.js';
import type { Database } from './schema.js';

export interface NodeLeaseOptions {
  /** How long a node counts as alive after its last heartbeat (ms). */
  leaseMs: number;
  /** The clock (Unix ms); Date.now unless a test's. */
  now?: () => number;
  /** Told when a heartbeat fails (the next one tries again). */
  onError?: (error: unknown) => void;
}

export class NodeLease {
  /** This node's id (`node_…`), recorded on each hold it takes. */
  readonly id = newId('node');
  readonly leaseMs: number;
  readonly #db: Kysely<Database>;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;
  #beating: Promise<void> = Promise.resolve();

  private constructor(db: Kysely<Database>, options: NodeLeaseOptions) {
    this.#db = db;
    this.leaseMs = options.leaseMs;
    this.#now = options.now ?? Date.now;
    const onError = options.onError ?? (() => undefined);
    this.#timer = setInterval(
      () => {
        this.#beating = this.heartbeat().catch(onError);
      },
      Math.max(1, Math.floor(options.leaseMs / 3)),
    );
    this.#timer.unref();
  }

  /** Writes this node's row and starts heartbeating. */
  static async register(db: Kysely<Database>, options: NodeLeaseOptions): Promise<NodeLease> {
    const lease = new NodeLease(db, options);
    try {
      await lease.heartbeat();
    } catch (error) {
      clearInterval(lease.#timer);
      throw error;
    }
    return lease;
  }

  /** Renews the lease now (writing the row again if another node forgot it). */
  async heartbeat(): Promise<void> {
    const now = this.#now();
    await this.#db
      .insertInto('nodes')
      .values({ id: this.id, host: hostname(), pid: process.pid, started_at: now, heartbeat_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: now }))
      .execute();
  }

  /** The other nodes whose lease ran out: dead. */
  async expired(): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('nodes')
      .select('id')
      .where('heartbeat_at', '<', this.#now() - this.leaseMs)
      .where('id', '!=', this.id)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Deletes the rows of these dead nodes (once their holds are released), unless one came back. */
  async forget(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#db
      .deleteFrom('nodes')
      .where('id', 'in', ids)
      .where('heartbeat_at', '<', this.#now() - this.leaseMs)
      .execute();
  }

  /** Stops heartbeating and deletes this node's row: a clean exit leaves nothing to sweep. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beating;
    await this.#db.deleteFrom('nodes').where('id', '=', this.id).execute();
  }
}
