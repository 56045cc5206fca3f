// The meter's ledger tests (ledger.test.ts) and its caps' (cap-admission.test.ts), on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./ledger.test.js');
await import('./cap-admission.test.js');
