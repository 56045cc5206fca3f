// The console API's tests of console-api.test.ts, on PostgreSQL (sessions, links, the throttle and the audit log shared by two nodes there).
process.env.GATEWAY_TEST_STORE = 'postgres';
await import('./console-api.test.js');
