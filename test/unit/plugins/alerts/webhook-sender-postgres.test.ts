// The webhook-sender tests on PostgreSQL (the fleet's store).
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./webhook-sender.test.js');
