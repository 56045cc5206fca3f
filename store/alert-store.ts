// The alert tables' parts over one database, made where they are needed (the alerts plugin, the APIs).
import type { Kysely } from 'kysely';
import { alertDb } from './alert-schema.js';
import { AlertEvents } from './alert-events.js';
import { AlertRules } from './alert-rules.js';
import type { Database } from './schema.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { WebhookEndpoints } from './webhook-endpoints.js';

export interface AlertStore {
  rules: AlertRules;
  events: AlertEvents;
  endpoints: WebhookEndpoints;
  deliveries: WebhookDeliveries;
}

/** `now`: the clock of the rows' times (the plugin context's, a test's). */
export function alertStore(db: Kysely<Database>, now: () => number = Date.now): AlertStore {
  const alerts = alertDb(db);
  return {
    rules: new AlertRules(alerts, now),
    events: new AlertEvents(alerts, now),
    endpoints: new WebhookEndpoints(alerts, now),
    deliveries: new WebhookDeliveries(alerts, now),
  };
}
