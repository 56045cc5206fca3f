// The migrations in order, listed in code (not read from a folder) so the build and the sources run the same set.
// A new migration gets the next number and is never edited after it ships.
import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { usageHolds } from './0002-usage-holds.js';
import { moneyIntegrity } from './0003-money-integrity.js';
import { nodeLeases } from './0004-node-leases.js';
import { consoleTables } from './0005-console.js';
import { caps } from './0006-caps.js';
import { payments } from './0007-payments.js';
import { alerts } from './0008-alerts.js';
import { batches } from './0009-batches.js';
import { serviceTiers } from './0010-service-tiers.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-usage-holds': usageHolds,
  '0003-money-integrity': moneyIntegrity,
  '0004-node-leases': nodeLeases,
  '0005-console': consoleTables,
  '0006-caps': caps,
  '0007-payments': payments,
  '0008-alerts': alerts,
  '0009-batches': batches,
  '0010-service-tiers': serviceTiers,
};

export const migrations: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
