// The audit log's tests of store-audit.test.ts, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./audit.test.js');
