// Service tiers (issue #31; docs/service-tiers.md): what a chat or responses client may ask for in
// `service_tier`, and the tier a request is served at. The decoders check the value; the meter resolves
// it against the operator's offer and the organization's settings (plugins/meter/service-tier.ts); the
// terminal sends the served tier's upstream priority, and the encoders echo its name.

/** The tiers a request can be served at: `default` is always offered, `flex` and `priority` when the operator lists them. */
export const SERVICE_TIERS = ['default', 'flex', 'priority'] as const;

export type ServiceTier = (typeof SERVICE_TIERS)[number];

/** What a client may send: a tier, or `auto` (as no field at all: the organization's default tier). */
export type RequestedServiceTier = ServiceTier | 'auto';

export function isServiceTier(value: unknown): value is ServiceTier {
  return (SERVICE_TIERS as readonly unknown[]).includes(value);
}

/** The tier a request is served at, as the meter resolved it. */
export interface ServedTier {
  readonly name: ServiceTier;
  /** The share of the list price paid, a whole percentage (100: the list price). */
  readonly pricePercent: number;
  /** vLLM's per-request `priority` (lower runs first); undefined: none sent. */
  readonly upstreamPriority: number | undefined;
}
