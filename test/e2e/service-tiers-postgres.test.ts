// The service tiers of service-tiers.test.ts (org settings, the tier's price in the ledger and the hold), on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./service-tiers.test.js');
