// The export's grouped sums of usage-pages.test.ts, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./usage-pages.test.js');
