// The alert routes, the same under the admin API (/admin/v1/orgs/:org/…, the operator) and the member
// API (/console/v1/orgs/:org/…, an organization's admins): alert rules, webhook endpoints (the signing
// secret shown once, at creation), a test event, and an endpoint's delivery log. Another organization's
// rule or endpoint is a 404, like one that does not exist; bad input is a 400 naming the field.
import type { IncomingMessage } from 'node:http';
import { AlertFieldError, type AlertRule, type NewAlertRule } from '../store/alert-rules.js';
import { alertStore, type AlertStore } from '../store/alert-store.js';
import type { AlertKind, AlertScope, CapPeriod } from '../store/alert-schema.js';
import { newId } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { WebhookDelivery } from '../store/webhook-deliveries.js';
import type { WebhookEndpoint } from '../store/webhook-endpoints.js';
import { WebhookSeal } from '../store/webhook-seal.js';
import { AdminError } from './errors.js';
import { readObject } from './http.js';
import type { AdminRoute } from './routes.js';

export interface AlertRoutesOptions {
  /** The routes' prefix up to the organization: `/admin/v1/orgs` or `/console/v1/orgs`. */
  prefix: string;
  /** The organization the path names, if this request may manage its alerts (else it throws: 401, 403, 404). */
  access(req: IncomingMessage, org: string): Promise<{ orgId: string; store: Store }>;
  /** The server's webhook key (config/webhook-key.ts), which seals the signing secrets. */
  webhookKey(): Promise<Buffer>;
}

export function alertRoutes(options: AlertRoutesOptions): AdminRoute[] {
  const base = `^${options.prefix.replace(/\//g, '\\/')}\\/([^/]+)`;
  const path = (rest: string) => new RegExp(`${base}${rest}$`);
  const open = async (req: IncomingMessage, org: string): Promise<{ orgId: string; alerts: AlertStore }> => {
    const { orgId, store } = await options.access(req, org);
    return { orgId, alerts: alertStore(store.db) };
  };
  let seal: Promise<WebhookSeal> | undefined;
  const sealer = () => (seal ??= options.webhookKey().then((key) => new WebhookSeal(key)));
  const endpointOf = async (alerts: AlertStore, orgId: string, id: string): Promise<WebhookEndpoint> => {
    const endpoint = await alerts.endpoints.find(orgId, id);
    if (endpoint === undefined) throw new AdminError('not_found', `no webhook endpoint '${id}'`);
    return endpoint;
  };

  return [
    {
      method: 'GET',
      path: path('\\/alert-rules'),
      async handle({ req, params: [org] }) {
        const { orgId, alerts } = await open(req, org!);
        return { status: 200, body: { rules: (await alerts.rules.list(orgId)).map(ruleBody) } };
      },
    },
    {
      method: 'POST',
      path: path('\\/alert-rules'),
      async handle({ req, params: [org] }) {
        const { orgId, alerts } = await open(req, org!);
        const rule = newRuleOf(await readObject(req));
        return { status: 201, body: ruleBody(await fields(() => alerts.rules.create(orgId, rule))) };
      },
    },
    {
      method: 'DELETE',
      path: path('\\/alert-rules\\/([^/]+)'),
      async handle({ req, params: [org, id] }) {
        const { orgId, alerts } = await open(req, org!);
        if (!(await alerts.rules.delete(orgId, id!))) throw new AdminError('not_found', `no alert rule '${id}'`);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: path('\\/webhooks'),
      async handle({ req, params: [org] }) {
        const { orgId, alerts } = await open(req, org!);
        return { status: 200, body: { endpoints: (await alerts.endpoints.list(orgId)).map(endpointBody) } };
      },
    },
    {
      method: 'POST',
      path: path('\\/webhooks'),
      async handle({ req, params: [org] }) {
        const { orgId, alerts } = await open(req, org!);
        const body = await readObject(req);
        if (typeof body.url !== 'string') throw new AdminError('invalid_request', "'url' must be a string", 'url');
        const description = body.description ?? '';
        if (typeof description !== 'string')
          throw new AdminError('invalid_request', "'description' must be a string", 'description');
        const seal = await sealer();
        const { endpoint, secret } = await fields(() =>
          alerts.endpoints.create(orgId, { url: body.url as string, description }, seal),
        );
        return { status: 201, body: { ...endpointBody(endpoint), secret } };
      },
    },
    {
      method: 'POST',
      path: path('\\/webhooks\\/([^/]+)\\/disable'),
      async handle({ req, params: [org, id] }) {
        const { orgId, alerts } = await open(req, org!);
        await endpointOf(alerts, orgId, id!);
        return { status: 200, body: endpointBody((await alerts.endpoints.disable(orgId, id!))!) };
      },
    },
    {
      method: 'DELETE',
      path: path('\\/webhooks\\/([^/]+)'),
      async handle({ req, params: [org, id] }) {
        const { orgId, alerts } = await open(req, org!);
        if (!(await alerts.endpoints.delete(orgId, id!)))
          throw new AdminError('not_found', `no webhook endpoint '${id}'`);
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: path('\\/webhooks\\/([^/]+)\\/test'),
      async handle({ req, params: [org, id] }) {
        const { orgId, alerts } = await open(req, org!);
        const endpoint = await endpointOf(alerts, orgId, id!);
        if (endpoint.disabledAt !== null)
          throw new AdminError('invalid_request', 'the endpoint is disabled: a test event would not be sent');
        const event = await alerts.events.fireOnce(
          { orgId, ruleId: null, crossing: `test:${newId('evt')}`, type: 'test', data: { endpoint_id: endpoint.id } },
          endpoint.id,
        );
        return { status: 202, body: { event_id: event!.id } };
      },
    },
    {
      method: 'GET',
      path: path('\\/webhooks\\/([^/]+)\\/deliveries'),
      async handle({ req, params: [org, id] }) {
        const { orgId, alerts } = await open(req, org!);
        const endpoint = await endpointOf(alerts, orgId, id!);
        return { status: 200, body: { deliveries: (await alerts.deliveries.list(endpoint.id)).map(deliveryBody) } };
      },
    },
  ];
}

/** A store call whose refusals name their field: a 400 with it. */
async function fields<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AlertFieldError) throw new AdminError('invalid_request', error.message, error.field);
    throw error;
  }
}

/** The request's rule, its types checked here; the store checks the values and what the scope names. */
function newRuleOf(body: Record<string, unknown>): NewAlertRule {
  const kind = body.kind as AlertKind;
  if (kind !== 'balance_below' && kind !== 'cap_pct')
    throw new AdminError('invalid_request', "'kind' must be one of balance_below, cap_pct", 'kind');
  const scope = (body.scope ?? 'org') as AlertScope;
  if (typeof scope !== 'string') throw new AdminError('invalid_request', "'scope' must be a string", 'scope');
  const scopeId = body.scope_id ?? null;
  if (scopeId !== null && typeof scopeId !== 'string')
    throw new AdminError(
      'invalid_request',
      "'scope_id' must be a string (a key's id or a member's e-mail)",
      'scope_id',
    );
  if (scope !== 'org' && scopeId === null)
    throw new AdminError('invalid_request', "'scope_id' must name the key or the member", 'scope_id');
  const thresholdField = kind === 'balance_below' ? 'threshold_micros' : 'threshold_pct';
  const threshold = body[thresholdField];
  if (typeof threshold !== 'number')
    throw new AdminError('invalid_request', `'${thresholdField}' must be a number`, thresholdField);
  const period = (body.period ?? null) as CapPeriod | null;
  if (period !== null && typeof period !== 'string')
    throw new AdminError('invalid_request', "'period' must be one of day, week, month", 'period');
  return { kind, scope, scopeId, threshold, period };
}

function ruleBody(rule: AlertRule) {
  return {
    id: rule.id,
    scope: rule.scope,
    scope_id: rule.scopeId,
    kind: rule.kind,
    ...(rule.kind === 'balance_below'
      ? { threshold_micros: rule.threshold, armed: rule.armed }
      : { threshold_pct: rule.threshold, period: rule.period }),
    created_at: new Date(rule.createdAt).toISOString(),
  };
}

function endpointBody(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    created_at: new Date(endpoint.createdAt).toISOString(),
    disabled_at: endpoint.disabledAt === null ? null : new Date(endpoint.disabledAt).toISOString(),
  };
}

function deliveryBody(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    attempt: delivery.attempt,
    status: delivery.status,
    response_status: delivery.responseStatus,
    error: delivery.error,
    next_attempt_at: new Date(delivery.nextAttemptAt).toISOString(),
    created_at: new Date(delivery.createdAt).toISOString(),
    finished_at: delivery.finishedAt === null ? null : new Date(delivery.finishedAt).toISOString(),
  };
}
