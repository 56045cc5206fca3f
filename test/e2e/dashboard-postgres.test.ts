// The dashboard's tests of dashboard.test.ts, in headless Chromium, on PostgreSQL.
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./dashboard.test.js');
