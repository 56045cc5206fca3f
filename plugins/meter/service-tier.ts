// Which service tier a request is served at (issue #31; docs/service-tiers.md), from what it asked for, what the
// operator offers (`service_tiers`) and what the operator set for its organization (store/org-service-tiers.ts):
// - `auto`, or no `service_tier`: the organization's default tier while it is offered and allowed, else `default`;
// - `default`: always;
// - `flex` or `priority`: when the operator offers it and the organization may use it, else a 400 naming
//   `service_tier` and the tier.
import type { ServiceTiersConfig } from '../../config/types.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestedServiceTier, ServedTier, ServiceTier } from '../../core/service-tier.js';
import type { OrgServiceTiers } from '../../store/org-service-tiers.js';

export class TierResolver {
  readonly #offered: ReadonlyMap<ServiceTier, ServedTier>;

  constructor(config: ServiceTiersConfig) {
    const offered = new Map<ServiceTier, ServedTier>();
    for (const name of ['default', 'flex', 'priority'] as const) {
      const tier = config[name];
      if (tier !== undefined)
        offered.set(name, { name, pricePercent: tier.price_percent, upstreamPriority: tier.upstream_priority });
    }
    this.#offered = offered;
  }

  /** The tier offered under this name, if the operator offers it. */
  offered(name: ServiceTier): ServedTier | undefined {
    return this.#offered.get(name);
  }

  /** The tier served; throws the 400 of a tier the operator does not offer or the organization may not use. */
  resolve(requested: RequestedServiceTier | undefined, org: OrgServiceTiers): ServedTier {
    const base = this.#offered.get('default')!;
    if (requested === undefined || requested === 'auto') {
      const target = org.defaultTier ?? 'default';
      const tier = this.#usable(target, org) ? this.#offered.get(target) : undefined;
      return tier ?? base;
    }
    const tier = this.#offered.get(requested);
    if (tier === undefined)
      throw new GatewayError(
        'GW_ERR_REQUEST_SERVICE_TIER',
        `Invalid value for 'service_tier': the service tier '${requested}' is not offered; use 'auto' or 'default'.`,
        'service_tier',
      );
    if (!this.#usable(requested, org))
      throw new GatewayError(
        'GW_ERR_REQUEST_SERVICE_TIER',
        `Invalid value for 'service_tier': your organization may not use the service tier '${requested}'; use 'auto' or 'default'.`,
        'service_tier',
      );
    return tier;
  }

  /** `default` is every organization's; another tier, the organization's unless the operator listed its tiers without it. */
  #usable(name: ServiceTier, org: OrgServiceTiers): boolean {
    return name === 'default' || org.allowed === null || org.allowed.includes(name);
  }
}
