// Service tiers (issue #31; docs/service-tiers.md): per organization, the tier a request that names none
// (or `auto`) is served at, and the tiers beyond `default` the operator lets it ask for; per ledger row,
// the tier the request was served at. All nullable: null is the default tier, every offered tier, and
// (on a row) a request served without tiers (a batch line, a row older than this migration).
import type { Kysely, Migration } from 'kysely';

export const serviceTiers: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('orgs').addColumn('service_tier_default', 'text').execute();
    await db.schema.alterTable('orgs').addColumn('service_tiers_allowed', 'text').execute();
    await db.schema.alterTable('usage').addColumn('service_tier', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('usage').dropColumn('service_tier').execute();
    await db.schema.alterTable('orgs').dropColumn('service_tiers_allowed').execute();
    await db.schema.alterTable('orgs').dropColumn('service_tier_default').execute();
  },
};
