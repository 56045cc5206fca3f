// The alert outbox: one row per event, unique per rule and crossing, so that "at most once per
// threshold crossing" holds in a fleet: whichever node inserts the row first fires, the others find it
// taken. The event's webhook deliveries (one first attempt per enabled endpoint) are queued in the same
// transaction, so an event is never left without them.
import type { Kysely, Transaction } from 'kysely';
import type { AlertDatabase } from './alert-schema.js';
import { newId } from './ids.js';

export interface AlertEvent {
  /** What receivers de-duplicate on (`gateway-event-id`). */
  id: string;
  orgId: string;
  ruleId: string | null;
  crossing: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: number;
}

export type NewAlertEvent = Omit<AlertEvent, 'id' | 'createdAt'>;

export class AlertEvents {
  constructor(
    private readonly db: Kysely<AlertDatabase>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A balance rule's crossing: the rule is disarmed (only while armed: one caller wins) and its event
   * written with its deliveries; undefined when the rule was not armed (fired already, here or elsewhere).
   */
  async fireBalanceRule(
    ruleId: string,
    event: Omit<NewAlertEvent, 'ruleId' | 'crossing'>,
  ): Promise<AlertEvent | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const disarmed = await trx
        .updateTable('alert_rules')
        .set((eb) => ({ armed: 0, crossings: eb('crossings', '+', 1) }))
        .where('id', '=', ruleId)
        .where('armed', '=', 1)
        .executeTakeFirst();
      if (Number(disarmed.numUpdatedRows) !== 1) return undefined;
      const { crossings } = await trx
        .selectFrom('alert_rules')
        .select('crossings')
        .where('id', '=', ruleId)
        .executeTakeFirstOrThrow();
      return this.#insert(trx, { ...event, ruleId, crossing: `n${Number(crossings)}` });
    });
  }

  /**
   * An event named by its crossing (a cap's period, a test): written once; undefined when it already
   * was. `endpointId`: queued for that endpoint only (a test event), else for every enabled one.
   */
  async fireOnce(event: NewAlertEvent, endpointId?: string): Promise<AlertEvent | undefined> {
    return this.db.transaction().execute((trx) => this.#insert(trx, event, endpointId));
  }

  async #insert(
    trx: Transaction<AlertDatabase>,
    event: NewAlertEvent,
    endpointId?: string,
  ): Promise<AlertEvent | undefined> {
    const fired: AlertEvent = { ...event, id: newId('evt'), createdAt: this.now() };
    const inserted = await trx
      .insertInto('alert_events')
      .values({
        id: fired.id,
        org_id: fired.orgId,
        rule_id: fired.ruleId,
        crossing: fired.crossing,
        type: fired.type,
        payload: JSON.stringify(fired.data),
        created_at: fired.createdAt,
      })
      .onConflict((conflict) => conflict.columns(['rule_id', 'crossing']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return undefined;
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('org_id', '=', fired.orgId)
      .where('disabled_at', 'is', null)
      .$if(endpointId !== undefined, (query) => query.where('id', '=', endpointId!))
      .execute();
    if (endpoints.length > 0)
      await trx
        .insertInto('webhook_deliveries')
        .values(
          endpoints.map((endpoint) => ({
            id: newId('dlv'),
            event_id: fired.id,
            endpoint_id: endpoint.id,
            attempt: 1,
            status: 'pending' as const,
            response_status: null,
            error: null,
            next_attempt_at: fired.createdAt,
            claimed_until: null,
            created_at: fired.createdAt,
            finished_at: null,
          })),
        )
        .execute();
    return fired;
  }
}
