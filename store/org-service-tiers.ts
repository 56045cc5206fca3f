// An organization's service-tier settings (issue #31; docs/service-tiers.md), as the operator sets them: the
// tier a request that names none (or `auto`) is served at, and which tiers beyond `default` it may ask for.
// The tier names are written out here as the config lists them (the store imports nothing of the gateway).
import { StoreError } from './errors.js';

export const TIER_NAMES = ['default', 'flex', 'priority'] as const;

export type TierName = (typeof TIER_NAMES)[number];

/** The tiers an organization may be allowed or refused: `default` is every organization's. */
export type ExtraTierName = Exclude<TierName, 'default'>;

export interface OrgServiceTiers {
  /** The tier a request naming none (or `auto`) is served at; null: `default`. */
  defaultTier: TierName | null;
  /** The tiers beyond `default` the organization may ask for; null: every tier the operator offers. */
  allowed: ExtraTierName[] | null;
}

export const NO_TIER_SETTINGS: Readonly<OrgServiceTiers> = { defaultTier: null, allowed: null };

/** Checks settings before they are stored: known names, `default` never listed, the default tier allowed. */
export function checkTierSettings(settings: OrgServiceTiers): OrgServiceTiers {
  const { defaultTier, allowed } = settings;
  if (defaultTier !== null && !(TIER_NAMES as readonly string[]).includes(defaultTier))
    throw new StoreError('GW_ERR_STORE_INVALID', `the default tier must be one of ${TIER_NAMES.join(', ')}`);
  if (allowed !== null) {
    for (const tier of allowed)
      if (tier !== 'flex' && tier !== 'priority')
        throw new StoreError(
          'GW_ERR_STORE_INVALID',
          `'${String(tier)}' cannot be allowed: list flex and/or priority ('default' is every organization's)`,
        );
    if (defaultTier !== null && defaultTier !== 'default' && !allowed.includes(defaultTier))
      throw new StoreError(
        'GW_ERR_STORE_INVALID',
        `the default tier '${defaultTier}' is not among the tiers allowed (${allowed.join(', ') || 'none'})`,
      );
  }
  return { defaultTier, allowed: allowed === null ? null : [...new Set(allowed)].sort() };
}

/** The settings as the two columns hold them. */
export function tierColumns(settings: OrgServiceTiers): {
  service_tier_default: string | null;
  service_tiers_allowed: string | null;
} {
  return {
    service_tier_default: settings.defaultTier,
    service_tiers_allowed: settings.allowed === null ? null : settings.allowed.join(','),
  };
}

/** The settings from the two columns (values the store did not write are ignored). */
export function tiersOfColumns(defaultTier: string | null, allowed: string | null): OrgServiceTiers {
  return {
    defaultTier: (TIER_NAMES as readonly (string | null)[]).includes(defaultTier) ? (defaultTier as TierName) : null,
    allowed:
      allowed === null
        ? null
        : allowed.split(',').filter((tier): tier is ExtraTierName => tier === 'flex' || tier === 'priority'),
  };
}
