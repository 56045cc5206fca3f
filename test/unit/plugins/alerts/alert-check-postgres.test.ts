// The alert-check tests on PostgreSQL (the fleet's store).
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./alert-check.test.js');
