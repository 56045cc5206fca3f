// The meter's ledger tests of meter-ledger.test.ts, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./ledger.test.js');
