// The admin API's tests of admin-api.test.ts (orgs, members, credits, keys, usage), on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./admin-api.test.js');
