// The alerts plugin: threshold alerts (issue #28). At the end of each generating request it checks the
// organization's rules (alert-check.ts) and fires what crossed, once per crossing in a fleet (the
// outbox's unique row); a fired event is e-mailed to the organization's admins (with `mail.url`) and
// queued for each enabled webhook endpoint, which webhook-sender.ts delivers, signed, with retries.
// It goes BEFORE `meter` in the chain: observers of one stage end inner plugin first, so its check runs
// once the meter's settlement is written. Options: poll_ms (how often due deliveries are looked for),
// max_attempts, backoff_base_ms, backoff_max_ms, timeout_ms (per attempt), lease_ms (a claimed
// attempt's lease), batch (attempts per round), allow_private_networks (endpoints on loopback, private or
// link-local addresses: off, so that organizations cannot reach the gateway's own network),
// log_retention_days (how long the delivery log keeps an attempt once it ended: 30).
import type { JSONSchemaType } from 'ajv';
import type { Logger } from 'pino';
import { ConfigError } from '../../config/errors.js';
import { optional } from '../../config/optional-key.js';
import { loadWebhookKey } from '../../config/webhook-key.js';
import type { Exchange } from '../../core/exchange.js';
import type { EventStream, Next, Plugin } from '../../core/plugin.js';
import { AlertMail } from '../../notify/alert-mail.js';
import { observe } from '../../proxy/stream/observe.js';
import type { AlertEvent } from '../../store/alert-events.js';
import { alertStore } from '../../store/alert-store.js';
import { WebhookSeal } from '../../store/webhook-seal.js';
import { definePlugin } from '../plugin-module.js';
import { adminMail } from './admin-mail.js';
import { AlertCheck } from './alert-check.js';
import { WebhookSender } from './webhook-sender.js';

interface AlertsOptions {
  poll_ms?: number;
  max_attempts?: number;
  backoff_base_ms?: number;
  backoff_max_ms?: number;
  timeout_ms?: number;
  lease_ms?: number;
  batch?: number;
  allow_private_networks?: boolean;
  log_retention_days?: number;
}

export const optionsSchema: JSONSchemaType<AlertsOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    poll_ms: optional({ type: 'integer', minimum: 10, maximum: 3_600_000 }),
    max_attempts: optional({ type: 'integer', minimum: 1, maximum: 50 }),
    backoff_base_ms: optional({ type: 'integer', minimum: 1, maximum: 86_400_000 }),
    backoff_max_ms: optional({ type: 'integer', minimum: 1, maximum: 604_800_000 }),
    timeout_ms: optional({ type: 'integer', minimum: 100, maximum: 120_000 }),
    lease_ms: optional({ type: 'integer', minimum: 1000, maximum: 3_600_000 }),
    batch: optional({ type: 'integer', minimum: 1, maximum: 1000 }),
    allow_private_networks: optional({ type: 'boolean' }),
    log_retention_days: optional({ type: 'integer', minimum: 1, maximum: 3650 }),
  },
};

export const alertsPlugin = definePlugin<AlertsOptions>({
  optionsSchema,
  after: ['auth'],
  async create(options, context): Promise<Plugin> {
    const {
      poll_ms: pollMs = 1000,
      max_attempts: maxAttempts = 8,
      backoff_base_ms: backoffBaseMs = 10_000,
      backoff_max_ms: backoffMaxMs = 3_600_000,
      timeout_ms: timeoutMs = 10_000,
      lease_ms: leaseMs = 60_000,
      batch = 50,
      allow_private_networks: allowPrivateNetworks = false,
      log_retention_days: retentionDays = 30,
    } = options;
    const names = context.config.plugins.map((entry) => entry.name);
    const meterAt = names.indexOf('meter');
    if (meterAt !== -1 && meterAt < names.indexOf('alerts'))
      throw new ConfigError(
        "plugin 'alerts' must come before 'meter' in the chain (it checks after the meter settles)",
      );
    if (leaseMs <= timeoutMs)
      throw new ConfigError("plugin 'alerts': lease_ms must be longer than timeout_ms (an attempt holds its lease)");
    const store = await context.store();
    const alerts = alertStore(store.db, context.now);
    const seal = new WebhookSeal(await loadWebhookKey(context.dataDir));
    const mailUrl = context.config.mail.url;
    const mail = mailUrl === undefined ? undefined : new AlertMail(mailUrl, context.config.mail.from);
    const mailing = new Set<Promise<void>>();

    const fired = (event: AlertEvent, log: Logger): void => {
      log.info({ event: event.id, type: event.type, org: event.orgId }, 'alerts: event fired');
      if (mail === undefined) return;
      const sending = (async () => {
        const org = await store.orgs.get(event.orgId);
        const admins = (await store.orgs.members(event.orgId)).filter((member) => member.role === 'admin');
        if (admins.length === 0) return;
        await mail.send(
          adminMail(
            org.name,
            admins.map((admin) => admin.email),
            event,
          ),
        );
      })()
        .catch((error: unknown) =>
          log.error({ event: event.id, err: (error as Error).message }, 'alerts: the alert e-mail could not be sent'),
        )
        .finally(() => mailing.delete(sending));
      mailing.add(sending);
    };
    const check = new AlertCheck({ alerts, orgs: store.orgs, caps: store.caps, fired, now: context.now });
    const sender = new WebhookSender({
      deliveries: alerts.deliveries,
      seal,
      policy: { maxAttempts, backoffBaseMs, backoffMaxMs, timeoutMs },
      leaseMs,
      batch,
      allowPrivateNetworks,
      now: context.now,
    });

    // One round at a time: the balance rules a top-up lifted re-armed, the due deliveries sent, the attempts
    // older than the retention forgotten.
    let round: Promise<void> | undefined;
    const timer = setInterval(() => {
      round ??= (async () => {
        await alerts.rules.rearmRecovered();
        await sender.sendDue();
        await alerts.deliveries.prune(context.now() - retentionDays * 86_400_000);
      })()
        .catch(() => undefined) // an unreachable store: the next round tries again
        .finally(() => (round = undefined));
    }, pollMs);
    timer.unref();

    return {
      name: 'alerts',
      async handle(exchange: Exchange, next: Next): Promise<EventStream> {
        const events = await next();
        const caller = exchange.locals.caller;
        if (caller === undefined) return events;
        return observe(events, { onEnd: () => check.requestEnded(caller.orgId, caller.keyId, exchange.log) });
      },
      async close() {
        clearInterval(timer);
        await check.idle();
        await round;
        await Promise.allSettled([...mailing]);
        mail?.close();
      },
    };
  },
});
