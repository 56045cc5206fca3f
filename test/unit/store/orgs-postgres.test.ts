// The organizations' tests of store-orgs.test.ts, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./orgs.test.js');
