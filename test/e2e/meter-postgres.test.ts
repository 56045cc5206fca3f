// The meter's end-to-end tests of meter.test.ts (every dialect billed once, 402, holds under
// concurrency, clients that leave, upstream failures), on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./meter.test.js');
