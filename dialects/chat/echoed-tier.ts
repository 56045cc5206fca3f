import type { EncodeContext } from '../../core/dialect.js';
import type { ServiceTier } from '../../core/service-tier.js';
import type { ChatEcho } from './decode.js';

/**
 * The `service_tier` a chat answer says (docs/service-tiers.md): the tier served, whenever the client sent
 * `service_tier` (`auto` included) or was served another tier than `default` (its organization's default); a
 * request that names no tier and gets `default` has the answer it always had.
 */
export function echoedTier(context: EncodeContext, echo: ChatEcho): ServiceTier | undefined {
  const served = context.serviceTier?.name ?? 'default';
  return echo.tierAsked || served !== 'default' ? served : undefined;
}
