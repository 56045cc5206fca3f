// The top-ups' tests of payments.test.ts, on PostgreSQL (two deliveries at once meet on the grants' unique indexes there).
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./payments.test.js');
