// The meter plugin: credits and the usage ledger (spec sections 7 and 8.4). At admission it holds an
// estimate of the request's cost on the organization's balance, or answers 402 when the balance is
// zero or below; at the end it settles the hold against the real cost, in the same transaction as the
// ledger row (request-meter.ts says when). count_tokens never reaches `handle`, so it never gets 402.
// A hold that no process settles (the process was killed mid-request) is released by a periodic sweep:
// at once when its node's lease ran out (store/node-lease.ts), else after orphan_hold_ms.
// The meter also decides a live request's service tier (service-tier.ts, docs/service-tiers.md) before its
// hold: the hold and the cost are the tier's share of the list price, the terminal sends its upstream
// priority, the encoders echo it. A batch line pays the batch price at the batch's priority, with no tier.
import type { JSONSchemaType } from 'ajv';
import { optional } from '../../config/optional-key.js';
import { GatewayError } from '../../core/errors.js';
import type { Exchange } from '../../core/exchange.js';
import { observe } from '../../proxy/stream/observe.js';
import type { EventStream, Next, Plugin } from '../../core/plugin.js';
import { definePlugin } from '../plugin-module.js';
import { dbSystemOf, storeSpan } from '../store-span.js';
import { orStoreUnavailable } from '../store-unavailable.js';
import { formatCredits } from '../../store/credits.js';
import { NodeLease } from '../../store/node-lease.js';
import { CAP_FIELDS, type Caps } from '../../store/cap-rules.js';
import type { Caller } from '../auth/index.js';
import type { HoldCap } from './cap-admission.js';
import { capError } from './cap-error.js';
import { callerCapsBody } from './caller-caps.js';
import { Ledger, type Hold } from './ledger.js';
import { NO_USAGE, Pricer } from './price.js';
import { RequestMeter } from './request-meter.js';
import { TierResolver } from './service-tier.js';

interface MeterOptions {
  default_hold_output_tokens?: number;
  orphan_hold_ms?: number;
  sweep_interval_ms?: number;
  node_lease_ms?: number;
}

export const optionsSchema: JSONSchemaType<MeterOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    /** Output tokens the hold assumes when a request sets no max_tokens (chat's default is unlimited). */
    default_hold_output_tokens: optional({ type: 'integer', minimum: 0 }),
    /** A hold older than this with no settlement is an orphan: refunded and marked 'released'. */
    orphan_hold_ms: optional({ type: 'integer', minimum: 1 }),
    /** How often the sweep looks for orphans (it also runs once at start). */
    sweep_interval_ms: optional({ type: 'integer', minimum: 10 }),
    /** A node that has not renewed its lease for this long is dead: its holds are released at the next sweep. */
    node_lease_ms: optional({ type: 'integer', minimum: 30 }),
  },
};

export const meterPlugin = definePlugin<MeterOptions>({
  optionsSchema,
  after: ['auth'],
  async create(options, context): Promise<Plugin> {
    const {
      default_hold_output_tokens: holdOutputTokens = 4096,
      orphan_hold_ms: orphanMs = 3_600_000,
      sweep_interval_ms: sweepMs = 60_000,
      node_lease_ms: leaseMs = 30_000,
    } = options;
    const tiers = new TierResolver(context.config.service_tiers);
    /** The list price times each offered tier's share. */
    const tierPricers = new Map(
      (['default', 'flex', 'priority'] as const).flatMap((name) => {
        const tier = tiers.offered(name);
        return tier === undefined ? [] : [[name, new Pricer(context.config.pricing, 0, tier.pricePercent)] as const];
      }),
    );
    // Batch lines (issue #29) pay the batch price: the list price less the configured discount.
    const batchPricer = new Pricer(context.config.pricing, context.config.batch.discount_percent);
    const store = await context.store();
    const lease = await NodeLease.register(store.db, { leaseMs });
    const ledger = new Ledger(store.db, store.transact, lease.id);
    /** Holds this process is still metering: the sweep leaves them alone, however old. */
    const inFlight = new Set<string>();
    const dbSystem = dbSystemOf(store);
    const metrics = context.metrics;
    const deps = { ledger, dbSystem, metrics, done: (hold: Hold) => inFlight.delete(hold.id) };

    let sweeping: Promise<unknown> = Promise.resolve();
    const sweep = (): void => {
      sweeping = (async () => {
        const dead = await lease.expired();
        await ledger.releaseOrphans(Date.now() - orphanMs, (id) => inFlight.has(id), { own: lease.id, dead });
        await lease.forget(dead);
      })().catch(() => 0);
    };
    sweep();
    const timer = setInterval(sweep, sweepMs);
    timer.unref();

    return {
      name: 'meter',
      capabilities: { 'meter.callerCaps': (exchange: Exchange) => callerCapsBody(store.caps, exchange, Date.now()) },
      async handle(exchange: Exchange, next: Next): Promise<EventStream> {
        const caller = exchange.locals.caller;
        const request = exchange.request;
        const dialect = exchange.route.dialect?.name;
        if (caller === undefined || request === undefined || dialect === undefined) {
          throw new GatewayError(
            'GW_ERR_INTERNAL',
            'The meter has no caller: the auth plugin must come before it in the chain.',
          );
        }
        const line = exchange.batchLine;
        // A line whose earlier attempt was billed (its node stopped before its result was kept) runs again unbilled.
        if (line?.prepaid === true) return next();
        let linePricer = batchPricer;
        if (line === undefined) {
          const tier = tiers.resolve(request.gateway?.service_tier, caller.serviceTiers);
          exchange.serviceTier = tier;
          exchange.logFields.service_tier = tier.name;
          linePricer = tierPricers.get(tier.name)!;
        }
        const hold: Hold = {
          id: exchange.id,
          orgId: caller.orgId,
          keyId: caller.keyId,
          dialect,
          holdMicros: linePricer.cost({
            ...NO_USAGE,
            input: exchange.inputEstimate,
            output: request.max_tokens ?? holdOutputTokens,
          }),
          createdAt: Date.now(),
          model: request.model,
          ...(caller.member === undefined ? {} : { member: caller.member }),
          caps: holdCapsOf(caller),
          ...(line === undefined ? {} : { batchId: line.batchId }),
          ...(exchange.serviceTier === undefined ? {} : { serviceTier: exchange.serviceTier.name }),
        };
        const held = await orStoreUnavailable(
          exchange.trace
            ? storeSpan(exchange.trace, 'meter hold', dbSystem, () => ledger.hold(hold))
            : ledger.hold(hold),
        );
        if (!held.taken) {
          if (held.cap !== undefined) {
            metrics?.capRejections.inc({ cap: CAP_FIELDS[held.cap.cap], scope: held.cap.scope.kind });
            throw capError(held.cap, exchange.responseHeaders, Date.now());
          }
          metrics?.insufficientCredits.inc(metrics.orgLabels(caller.orgId));
          throw noCredits(held.balanceMicros);
        }
        inFlight.add(hold.id);
        const meter = new RequestMeter(exchange, hold, { ...deps, pricer: linePricer });
        let events: EventStream;
        try {
          events = await next();
        } catch (error) {
          await meter.failed(error);
          throw error;
        }
        return observe(events, meter);
      },
      async close() {
        clearInterval(timer);
        await sweeping;
        await lease.close().catch(() => undefined); // unreachable store: the lease runs out instead
      },
    };
  },
});

/** The caller's caps that a hold must fit: the spend and concurrency caps of its key and its member. */
function holdCapsOf(caller: Caller): HoldCap[] {
  const holdCaps: HoldCap[] = [];
  const { key, member } = caller.caps;
  if (admissionCaps(key))
    holdCaps.push({ scope: { kind: 'key', keyId: caller.keyId, name: caller.keyName }, caps: key });
  if (member !== undefined && admissionCaps(member.caps))
    holdCaps.push({ scope: { kind: 'member', email: member.email }, caps: member.caps });
  return holdCaps;
}

/** Whether any of the caps admission decides is set. */
function admissionCaps(caps: Caps | undefined): caps is Caps {
  return (
    caps !== undefined &&
    (caps.dayMicros !== undefined ||
      caps.weekMicros !== undefined ||
      caps.monthMicros !== undefined ||
      caps.concurrentRequests !== undefined)
  );
}

function noCredits(balanceMicros: number | undefined): GatewayError {
  const balance = formatCredits(balanceMicros ?? 0);
  return new GatewayError(
    'GW_ERR_BILLING_NO_CREDITS',
    `Insufficient credits: your organization's balance is ${balance} credits. Add credits to continue (an admin can run \`gateway credits add ORG AMOUNT\` or use the dashboard).`,
  );
}
