// The killed node's test of payments-kill.test.ts, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./payments-kill.test.js');
