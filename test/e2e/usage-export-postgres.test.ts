// The usage export's tests of usage-export.test.ts, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./usage-export.test.js');
