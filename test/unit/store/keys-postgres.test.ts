// The API keys' tests of store-keys.test.ts, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./keys.test.js');
