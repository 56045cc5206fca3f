// The webhook delivery log and queue: one row per attempt to deliver one event to one endpoint. A node
// claims a due attempt with a conditional UPDATE of its lease (`claimed_until`), so no two nodes send
// one attempt; the outcome is written on the row, and a failed attempt that may be retried queues the
// next one (unique per event, endpoint and attempt) in the same transaction.
import type { Kysely, Selectable } from 'kysely';
import type { AlertDatabase, DeliveryStatus, WebhookDeliveriesTable } from './alert-schema.js';
import { newId } from './ids.js';

export interface WebhookDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  attempt: number;
  status: DeliveryStatus;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: number;
  createdAt: number;
  finishedAt: number | null;
}

/** A claimed attempt, with what sending it needs. */
export interface DueDelivery extends WebhookDelivery {
  url: string;
  sealedSecret: string;
  type: string;
  orgId: string;
  /** The event's data, JSON text. */
  payload: string;
  eventCreatedAt: number;
}

export interface AttemptOutcome {
  /** The receiver's status, when it answered. */
  responseStatus: number | null;
  error: string | null;
  /** When to try again (a failed attempt), or undefined: no more attempts. */
  retryAt?: number;
}

export class WebhookDeliveries {
  constructor(
    private readonly db: Kysely<AlertDatabase>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Up to `limit` due attempts to enabled endpoints, each claimed by this caller for `leaseMs`. */
  async claimDue(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    const now = this.now();
    const due = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .innerJoin('alert_events as v', 'v.id', 'd.event_id')
      .selectAll('d')
      .select(['e.url', 'e.sealed_secret', 'v.type', 'v.org_id', 'v.payload', 'v.created_at as event_created_at'])
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('d.claimed_until', 'is', null), eb('d.claimed_until', '<=', now)]))
      .where('e.disabled_at', 'is', null)
      .orderBy('d.next_attempt_at')
      .limit(limit)
      .execute();
    const claimed: DueDelivery[] = [];
    for (const row of due) {
      const result = await this.db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: now + leaseMs })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) continue; // another node took it
      claimed.push({
        ...toDelivery(row),
        url: row.url,
        sealedSecret: row.sealed_secret,
        type: row.type,
        orgId: row.org_id,
        payload: row.payload,
        eventCreatedAt: Number(row.event_created_at),
      });
    }
    return claimed;
  }

  async delivered(delivery: WebhookDelivery, responseStatus: number): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'delivered', response_status: responseStatus, finished_at: this.now(), claimed_until: null })
      .where('id', '=', delivery.id)
      .execute();
  }

  /** The attempt failed: its row says why, and the next attempt is queued when `retryAt` is given. */
  async failed(delivery: WebhookDelivery, outcome: AttemptOutcome): Promise<void> {
    const now = this.now();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status: 'failed',
          response_status: outcome.responseStatus,
          error: outcome.error,
          finished_at: now,
          claimed_until: null,
        })
        .where('id', '=', delivery.id)
        .execute();
      if (outcome.retryAt === undefined) return;
      await trx
        .insertInto('webhook_deliveries')
        .values({
          id: newId('dlv'),
          event_id: delivery.eventId,
          endpoint_id: delivery.endpointId,
          attempt: delivery.attempt + 1,
          status: 'pending',
          response_status: null,
          error: null,
          next_attempt_at: outcome.retryAt,
          claimed_until: null,
          created_at: now,
          finished_at: null,
        })
        .onConflict((conflict) => conflict.columns(['event_id', 'endpoint_id', 'attempt']).doNothing())
        .execute();
    });
  }

  /** Forgets the attempts that ended before `before` (Unix ms); how many. */
  async prune(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('webhook_deliveries')
      .where('status', '!=', 'pending')
      .where('finished_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** An endpoint's attempts, newest first. */
  async list(endpointId: string, limit = 100): Promise<WebhookDelivery[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('created_at', 'desc')
      .orderBy('attempt', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toDelivery);
  }
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    attempt: Number(row.attempt),
    status: row.status,
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    error: row.error,
    nextAttemptAt: Number(row.next_attempt_at),
    createdAt: Number(row.created_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
  };
}
